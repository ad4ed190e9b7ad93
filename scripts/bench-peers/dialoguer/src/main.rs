// The peer sign-up: Email, Password (masked), Confirm password (masked); then an Argon2id
// hash (m=19456 KiB, t=2, p=1, 16-byte salt, 32-byte hash) stored with an SQLite insert into
// the database named by the first argument. Exit 0 when stored, 1 otherwise.
use dialoguer::{Input, Password};
use std::io::Read;
use std::process::exit;

fn main() {
    let email: String = Input::new().with_prompt("Email").interact_text().unwrap_or_else(|_| exit(1));
    let password = Password::new()
        .with_prompt("Password")
        .with_confirmation("Confirm password", "Passwords do not match")
        .interact()
        .unwrap_or_else(|_| exit(1));

    let mut salt = [0u8; 16];
    std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut salt)).unwrap_or_else(|_| exit(1));
    let config = argon2::Config {
        variant: argon2::Variant::Argon2id,
        version: argon2::Version::Version13,
        mem_cost: 19456,
        time_cost: 2,
        lanes: 1,
        hash_length: 32,
        ..argon2::Config::default()
    };
    let hash = argon2::hash_encoded(password.as_bytes(), &salt, &config).unwrap_or_else(|_| exit(1));

    let path = std::env::args().nth(1).unwrap_or_else(|| exit(1));
    let db = rusqlite::Connection::open(path).unwrap_or_else(|_| exit(1));
    let stored = db
        .execute_batch(
            "PRAGMA journal_mode = WAL;
             CREATE TABLE IF NOT EXISTS account (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE,
                 password_hash TEXT NOT NULL, created_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP);",
        )
        .and_then(|_| db.execute("INSERT INTO account (email, password_hash) VALUES (?1, ?2)", rusqlite::params![email, hash]));
    exit(if stored.is_ok() { 0 } else { 1 })
}
