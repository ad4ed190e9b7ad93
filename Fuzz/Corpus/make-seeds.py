#!/usr/bin/env python3
"""Writes the seed corpus of each fuzz target (Fuzz/Corpus/<target>/), hostile seeds included.

The files are kept in the repository; run this again only to change the seeds. Each seed
starts with the header its target reads (see the comment at the top of each target).
"""
import json, os, shutil, sqlite3, struct, tempfile

here = os.path.dirname(os.path.abspath(__file__))

def write(target, name, data):
    folder = os.path.join(here, target)
    os.makedirs(folder, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)

u = lambda s: s.encode("utf-8")

# Text a person or a script might send, hostile first.
hostile = {
    "invalid-utf8": b"\xff\xfe\xc3\x28\xed\xa0\x80\xc0\xaf\xf4\x90\x80\x80",
    "nul": b"ali\x00ce@example.com",
    "escape": b"a\x1b]0;PWNED\x07\x1b[2J\r@example.com",
    "c1-and-bidi": u("a\u009b31m\u202eb@example.com"),
    "fullwidth": u("\uff41\uff4c\uff49\uff43\uff45@example.com"),
    "zwj": u("\U0001F468\u200d\U0001F469\u200d\U0001F467@example.com"),
    "bom": u("\ufeffalice@example.com"),
    "invisible": u("alice\ufe0f@example.com"),
    "cgj": u("alic\u034fe@example.com"),
    "greek-upper": u("\u039f\u0394\u03a5\u03a3\u03a3\u0395\u0391\u03a3@example.gr"),
    "greek-final-sigma": u("\u03bf\u03b4\u03c5\u03c3\u03c3\u03b5\u03b1\u03c2@example.gr"),
    "nfd": u("a\u0308lice@example.com"),
    "dotted-i": u("\u0130stanbul@example.tr"),
    "eszett": u("stra\u00dfe@stra\u00dfe.de"),
    "idn": u("\u7528\u6237@\u4f8b\u5b50.\u5e7f\u544a"),
    "devanagari": u("\u092e\u0947\u0932@\u0909\u0926\u093e\u0939\u0930\u0923.\u0915\u0949\u092e"),
    "quoted": b'"a b"@example.com',
    "ip-literal": b"a@[127.0.0.1]",
    "numeric-tld": b"a@123.456",
    "long": b"a" * 64 + b"@" + b".".join([b"b" * 63] * 3) + b".cd",
    "crlf": b"alice@example.com\r",
    "spaces": b"  alice@example.com  ",
}

# 1. FuzzLineInput: a header byte (bit 0: through a socket, (h >> 1) + 1 bytes a read), then bytes.
line = "FuzzLineInput"
answers = b"alice@example.com\nCorrect-Horse-Battery-9\nCorrect-Horse-Battery-9\n"
write(line, "script", b"\x00" + answers)
write(line, "script-crlf-1-byte-reads", b"\x01" + answers.replace(b"\n", b"\r\n"))
write(line, "no-final-newline-3-byte-reads", b"\x05a@b.example\nlast")
write(line, "lone-cr", b"\x00\r\n\r\r\n\r")
write(line, "empty", b"\x00")
for name, data in hostile.items():
    write(line, name, b"\x07" + data + b"\n" + data + b"\r\n")
write(line, "long-line-over-limit", b"\x00" + b"a" * 65537 + b"\nnext\n")
write(line, "long-line-at-limit-crlf", b"\xff" + b"b" * 65536 + b"\r\nnext\n")
write(line, "long-line-limit-plus-cr", b"\x00" + b"c" * 65537 + b"\r")

# 2. FuzzEmail: the answer's bytes.
for name, data in hostile.items():
    write("FuzzEmail", name, data)
write("FuzzEmail", "plain", b"alice@example.com")
write("FuzzEmail", "idn-punycode", b"Anna@XN--BCHER-KVA.de")
write("FuzzEmail", "idn-undecodable", b"b@xn--zz.de")
write("FuzzEmail", "idn-long-once-encoded", u("b@\u9dbb\u6eb2\u7be4\u91d8\u51b6\u8999\u6de0\u54a3\u6213\u5c7d\u7d96\u8a0a\u6d8f\u7ebc\u9399\u5b0d\u9776\u6dea\u4fad\u69bd\u823e.cn"))
write("FuzzEmail", "idn-greek-final-sigma", u("a@\u03bf\u03b4\u03c5\u03c3\u03c3\u03b5\u03b1\u03c2.gr"))

# 3. FuzzPassword: policy byte (0 standard, 1 strict, 2 nist; bit 7 a mismatched confirmation),
#    a length byte and the email, then the password.
def password_seed(policy, email, password):
    e = u(email)
    return bytes([policy, len(e)]) + e + (password if isinstance(password, bytes) else u(password))
passwords = {
    "good": "Correct-Horse-Battery-9",
    "fullwidth": "\uff21bcdefgh-Secret-1234",
    "ligature": "\ufb01nancial-Secret-99",
    "nbsp": "Correct\u00a0Horse-Battery-9",
    "nfd": "Cafe\u0301-Latte-Secret-42",
    "superscript": "Secret-Token\u00b2-Zebra-9",
    "zwj": "Secret-\U0001F468\u200d\U0001F469-Token-9A",
    "zwsp": "Correct\u200bHorse-Battery-9",
    "bom": "\ufeffCorrect-Horse-Battery-9",
    "tab": "Correct\tHorse-Battery-9",
    "escape": "Correct\x1b[2JHorse-Battery-9",
    "greek": "\u039f\u0394\u03a5\u03a3\u03a3\u0395\u0391\u03a3-\u03bf\u03b4\u03c5\u03c3\u03c3\u03b5\u03b1\u03c2-9",
    "common": "password",
    "short": "Ab1",
    "long": "Aa1-" * 257,
}
for policy, label in [(0, "standard"), (1, "strict"), (2, "nist")]:
    for name, password in passwords.items():
        write("FuzzPassword", f"{label}-{name}", password_seed(policy, "alice@example.com", password))
write("FuzzPassword", "nist-contains-email", password_seed(2, "aliceliddell@example.com", "aliceliddell-lantern-harbour"))
write("FuzzPassword", "standard-mismatch", password_seed(0x80, "bob@example.org", "Correct-Horse-Battery-9"))
write("FuzzPassword", "invalid-utf8", password_seed(0, "a@b.example", b"Secret-\xff\xfe-Token-9A"))

# 4. FuzzPolicyFile: the file's bytes.
policy = "FuzzPolicyFile"
write(policy, "full", json.dumps({"name": "acme", "base": "nist", "minLength": 10, "maxLength": 64,
      "require": ["digit"], "minimumStrength": "strong", "rejectCommon": True, "rejectEmailLocalPart": True,
      "blockedWords": ["acme"], "blocklistFile": "words.txt", "messages": {"password.tooShort": "Ten or more"}}))
write(policy, "minimal", "{}")
write(policy, "strict-base", '{"base": "strict", "minimumStrength": "very strong"}')
write(policy, "unknown-key", '{"minLenght": 3}')
write(policy, "wrong-types", '{"minLength": "8", "require": "digit", "messages": []}')
write(policy, "huge-numbers", '{"minLength": 1e400, "maxLength": -0, "x": 18446744073709551616}')
write(policy, "deep-nesting", "[" * 5000 + "]" * 5000)
write(policy, "deep-object", '{"a":' * 3000 + "1" + "}" * 3000)
write(policy, "lone-surrogate", '{"name": "\\ud800", "blockedWords": ["\\udfff\\u0000"]}')
write(policy, "bom", b"\xef\xbb\xbf{}")
write(policy, "duplicate-keys", '{"minLength": 8, "minLength": 9}')
write(policy, "invalid-utf8", b'{"name": "\xff\xfe"}')
write(policy, "not-json", "# a blocklist\n  acme  \n\nsecret\r\n")

# 5. FuzzWizard: flags (bit 0 script, bits 1-2 policy, bit 3 preset email, bit 4 preset password,
#    bit 5 unreadable preset password, each preset followed by its pool index), then operations:
#    0 pool answer (index), 1 answer (length, bytes), 2 long answer (length, bytes, repeat),
#    3 unreadable (problem), 4 interrupt, 5 end of input, 6 store result (index), 7 any pool answer.
wizard = "FuzzWizard"
pool = lambda i: bytes([0, i])
created, taken, disk = bytes([6, 0]), bytes([6, 1]), bytes([6, 2])
happy = pool(0) + pool(0) + pool(0)
write(wizard, "interactive-happy", b"\x00" + happy + pool(0) + created)
write(wizard, "script-happy", b"\x01" + happy + created)
write(wizard, "interactive-edit-retry-taken", b"\x00" + happy + pool(2) + pool(3) + pool(4) + pool(0) + pool(1)
      + pool(0) + disk + pool(11) + pool(0) + taken + pool(4) + pool(0) + created)
write(wizard, "interactive-errors-discard", b"\x00" + pool(2) + pool(0) + pool(2) + pool(0) + pool(1) + bytes([4]) + pool(1)
      + bytes([4]) + pool(0))
write(wizard, "script-invalid", b"\x01" + pool(2) + pool(2) + pool(3))
write(wizard, "script-ends-early", b"\x01" + pool(0) + pool(0) + bytes([5]))
write(wizard, "presets-strict", b"\x1a\x00\x00" + pool(0) + created)
write(wizard, "unreadable-preset-nist", b"\x24\x01" + pool(0) + bytes([3, 1]) + pool(0))
write(wizard, "fuzz-answers", b"\x00" + bytes([1, 17]) + b"bob@example.org\x1b[" + bytes([1, 12]) + u("\uff21bc-Secret9")
      + bytes([2, 3]) + b"Ab9" + bytes([100]) + bytes([3, 2]) + bytes([7, 30]))

# 6. FuzzStore: flags (bit 0 writer, bit 1 both, bit 2 magic prefix, bit 3 a -wal: split byte x 64),
#    then the file. Small databases (512-byte pages) made by SQLite itself.
store = "FuzzStore"
scratch = tempfile.mkdtemp()

def database(name, statements, wal=False, keep_wal=False):
    path = os.path.join(scratch, name + ".sqlite")
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA page_size = 512")
    if wal:
        connection.execute("PRAGMA journal_mode = WAL")
        connection.execute("PRAGMA wal_autocheckpoint = 0")
    for statement in statements:
        connection.execute(statement)
    main = open(path, "rb").read()
    side = open(path + "-wal", "rb").read() if keep_wal and os.path.exists(path + "-wal") else None
    connection.close()
    if not keep_wal:
        main = open(path, "rb").read()
    return main, side

signup_schema = [
    "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)",
    'CREATE TABLE "account" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "email" TEXT NOT NULL, '
    '"email_key" TEXT NOT NULL UNIQUE, "password_hash" TEXT NOT NULL, "created_at" TEXT NOT NULL)',
    "INSERT INTO grdb_migrations VALUES ('v1-accounts')",
]
row = ("INSERT INTO account (email, email_key, password_hash, created_at) VALUES ('a\x1b[2J@example.com', "
       "'a\x1b[2j@example.com', '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$aGFzaA', '2026-01-01T00:00:00Z')")
seeds = {
    "signup": database("signup", signup_schema + [row]),
    "signup-newer": database("newer", signup_schema + ["INSERT INTO grdb_migrations VALUES ('v2-future')"]),
    "signup-no-unique-key": database("nokey", [
        "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)",
        "CREATE TABLE account (id INTEGER PRIMARY KEY, email TEXT, email_key TEXT, password_hash TEXT, created_at TEXT)",
        "INSERT INTO grdb_migrations VALUES ('v1-accounts')"]),
    "empty-database": database("empty", ["CREATE TABLE t (x)", "DROP TABLE t"]),
    "only-grdb-migrations": database("grdb", ["CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)"]),
    "foreign-notes": database("notes", ["CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)",
                                        "INSERT INTO notes (body) VALUES ('keep me')"]),
    "foreign-browser-history": database("places", [
        "CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url LONGVARCHAR, title LONGVARCHAR)",
        "CREATE TABLE moz_historyvisits (id INTEGER PRIMARY KEY, place_id INTEGER, visit_date INTEGER)",
        "CREATE INDEX moz_places_url ON moz_places (url)",
        "INSERT INTO moz_places (url, title) VALUES ('https://example.com', 'Example')"]),
    "foreign-wal-mode": database("walmode", ["CREATE TABLE notes (body TEXT)", "INSERT INTO notes VALUES ('x')"], wal=True),
    "foreign-account-table": database("otheraccount", ["CREATE TABLE account (id INTEGER PRIMARY KEY, name TEXT)"]),
}
for name, (main, _) in seeds.items():
    write(store, name + "-reader", b"\x00" + main)
    write(store, name + "-writer", b"\x01" + main)
    write(store, name + "-both", b"\x02" + main)
for name, statements in [("foreign-with-wal", ["CREATE TABLE notes (body TEXT)", "INSERT INTO notes VALUES ('in the wal')"]),
                         ("signup-with-wal", signup_schema + [row])]:
    main, side = database(name, statements, wal=True, keep_wal=True)
    if side and len(main) % 64 == 0 and len(main) // 64 < 256:
        write(store, name + "-reader", bytes([0x08, len(main) // 64]) + main + side)
        write(store, name + "-writer", bytes([0x09, len(main) // 64]) + main + side)
write(store, "magic-only", b"\x06")
write(store, "magic-and-header", b"\x06\x02\x00\x01\x01\x00\x40\x20\x20" + b"\x00" * 83)
write(store, "text-file", b"\x03not a database at all\n")
write(store, "empty-file", b"\x03")
shutil.rmtree(scratch)
