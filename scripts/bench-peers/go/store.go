// The Go peers' common part, for scripts/bench: an Argon2id hash (m=19456 KiB, t=2, p=1,
// 16-byte salt, 32-byte hash) stored with an SQLite insert into the database named by the
// first argument. The prompts are in xterm.go (golang.org/x/term, the default) or
// bubbletea.go (-tags bubbletea). Exit 0 when stored, 1 otherwise. Built with
// GO111MODULE=off against Debian's /usr/share/gocode.
package main

import (
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"fmt"
	"os"

	_ "github.com/mattn/go-sqlite3"
	"golang.org/x/crypto/argon2"
)

func fail() { os.Exit(1) }

func main() {
	email, password := ask()
	store(email, encode(password))
}

// encode hashes like libargon2's argon2id_hash_encoded and returns the PHC string.
func encode(password []byte) string {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		fail()
	}
	hash := argon2.IDKey(password, salt, 2, 19456, 1, 32)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=19$m=19456,t=2,p=1$%s$%s", b64.EncodeToString(salt), b64.EncodeToString(hash))
}

func store(email, hash string) {
	if len(os.Args) < 2 {
		fail()
	}
	db, err := sql.Open("sqlite3", os.Args[1])
	if err != nil {
		fail()
	}
	defer db.Close()
	_, err = db.Exec(`PRAGMA journal_mode = WAL;
		CREATE TABLE IF NOT EXISTS account (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE,
			password_hash TEXT NOT NULL, created_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP)`)
	if err == nil {
		_, err = db.Exec("INSERT INTO account (email, password_hash) VALUES (?, ?)", email, hash)
	}
	if err != nil {
		db.Close()
		fail()
	}
}
