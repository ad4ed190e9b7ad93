// The peer sign-up: Email, Password (masked), Confirm password (masked); then an
// Argon2id hash (m=19456 KiB, t=2, p=1, 16-byte salt, 32-byte hash) stored with an SQLite
// insert into the database named by the first argument. Exit 0 when stored, 1 otherwise.
import CArgon2
import CSQLite
import ConsoleKitTerminal
import Glibc

let terminal = Terminal()
let email = terminal.ask("Email")
let password = terminal.ask("Password", isSecure: true)
guard terminal.ask("Confirm password", isSecure: true) == password else {
    terminal.error("Passwords do not match")
    exit(1)
}

var salt = [UInt8](repeating: 0, count: 16)
guard getentropy(&salt, salt.count) == 0 else { exit(1) }
var encoded = [CChar](repeating: 0, count: 128)
let status = password.withCString { text in
    argon2id_hash_encoded(2, 19456, 1, text, strlen(text), salt, salt.count, 32, &encoded, encoded.count)
}
guard status == ARGON2_OK.rawValue else { exit(1) }

var db: OpaquePointer?
guard CommandLine.arguments.count > 1, sqlite3_open(CommandLine.arguments[1], &db) == SQLITE_OK else { exit(1) }
let schema = """
    PRAGMA journal_mode = WAL;
    CREATE TABLE IF NOT EXISTS account (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE,
        password_hash TEXT NOT NULL, created_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP);
    """
guard sqlite3_exec(db, schema, nil, nil, nil) == SQLITE_OK else { exit(1) }
var insert: OpaquePointer?
guard sqlite3_prepare_v2(db, "INSERT INTO account (email, password_hash) VALUES (?, ?)", -1, &insert, nil) == SQLITE_OK
else { exit(1) }
// SQLITE_TRANSIENT: SQLite copies the text before the Swift strings go away.
let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
sqlite3_bind_text(insert, 1, email, -1, transient)
sqlite3_bind_text(insert, 2, String(cString: encoded), -1, transient)
let stored = sqlite3_step(insert) == SQLITE_DONE
sqlite3_finalize(insert)
sqlite3_close(db)
exit(stored ? 0 : 1)
