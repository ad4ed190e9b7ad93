"""The peer sign-up in Python, for scripts/bench: python_peer.py click|questionary DB.

Email, Password (masked), Confirm password (masked), asked with click or with questionary
(only the one named is imported); then an Argon2id hash (argon2-cffi: m=19456 KiB, t=2,
p=1, 16-byte salt, 32-byte hash) stored with an SQLite insert (the standard library's
sqlite3) into DB. Exit 0 when stored, 1 otherwise.
"""

import sys


def ask_click():
    import click

    email = click.prompt("Email")
    password = click.prompt("Password", hide_input=True, confirmation_prompt="Confirm password")
    return email, password


def ask_questionary():
    import questionary

    email = questionary.text("Email").ask()
    password = questionary.password("Password").ask()
    if email is None or password is None or questionary.password("Confirm password").ask() != password:
        print("Passwords do not match", file=sys.stderr)
        sys.exit(1)
    return email, password


def main():
    library, path = sys.argv[1], sys.argv[2]
    email, password = {"click": ask_click, "questionary": ask_questionary}[library]()

    import sqlite3

    from argon2 import PasswordHasher

    encoded = PasswordHasher(time_cost=2, memory_cost=19456, parallelism=1, hash_len=32, salt_len=16).hash(password)
    db = sqlite3.connect(path)
    db.executescript(
        """PRAGMA journal_mode = WAL;
        CREATE TABLE IF NOT EXISTS account (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE,
            password_hash TEXT NOT NULL, created_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP);"""
    )
    with db:
        db.execute("INSERT INTO account (email, password_hash) VALUES (?, ?)", (email.strip(), encoded))
    db.close()


if __name__ == "__main__":
    main()
