"""signup's figures against their references, for scripts/bench (which builds and prepares
everything first).

Every figure is measured against its reference in the same run, the two interleaved
(one run of each per round), so a noisy shared machine moves both alike. Processes are
started with posix_spawn and reaped with wait4: the time is exec to exit as the parent
sees it, and the peak memory is the kernel's ru_maxrss (what `/usr/bin/time -f %M`
prints). Nothing here passes or fails on a number.
"""

import os
import statistics
import sys
import time

env = os.environ
SIGNUP = env["BENCH_SIGNUP"]
FLOOR = env["BENCH_FLOOR"]
ARGON2 = env.get("BENCH_ARGON2", "")
SQLITE3 = env.get("BENCH_SQLITE3", "")
DJANGO = env.get("BENCH_DJANGO", "")  # "python manage.py", or empty with a note
DJANGO_NOTE = env.get("BENCH_DJANGO_NOTE", "")
TMP = env["BENCH_TMP"]
MILLION = env["BENCH_MILLION"]  # a database of 1,000,000 accounts
EMPTY = env["BENCH_EMPTY"]  # a database with the schema and no account
PASSWORD = "Quartz-Lantern-58"
ROUNDS = int(env.get("BENCH_ROUNDS", "21"))
CHILD_ENV = {"PATH": "/usr/bin:/bin", "HOME": TMP, "LANG": "C.UTF-8", "TERM": "dumb", "SWIFT_BACKTRACE": "enable=no"}


def spawn(argv, stdin=None, environment=None, first_line_after=None):
    """Runs argv to its end; returns (wall ms, peak KiB, ms to the first output row or None, exit status, CPU ms).

    stdin: bytes written to a file given as standard input (None: /dev/null).
    first_line_after: when not None, standard output is a pipe and the time at which
    line number `first_line_after` (0-based) is complete is recorded; the rest is drained.
    """
    actions = []
    path_in = "/dev/null"
    if stdin is not None:
        path_in = os.path.join(TMP, "stdin")
        with open(path_in, "wb") as handle:
            handle.write(stdin)
    actions.append((os.POSIX_SPAWN_OPEN, 0, path_in, os.O_RDONLY, 0))
    actions.append((os.POSIX_SPAWN_OPEN, 2, "/dev/null", os.O_WRONLY, 0))
    read_end = None
    if first_line_after is None:
        actions.append((os.POSIX_SPAWN_OPEN, 1, "/dev/null", os.O_WRONLY, 0))
    else:
        read_end, write_end = os.pipe()
        actions.append((os.POSIX_SPAWN_DUP2, write_end, 1))
        actions.append((os.POSIX_SPAWN_CLOSE, read_end))
    start = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, environment or CHILD_ENV, file_actions=actions)
    first = None
    if read_end is not None:
        os.close(write_end)
        lines = 0
        while True:
            chunk = os.read(read_end, 1 << 16)
            if not chunk:
                break
            if first is None:
                lines += chunk.count(b"\n")
                if lines > first_line_after:
                    first = (time.perf_counter() - start) * 1000
        os.close(read_end)
    _, status, usage = os.wait4(pid, 0)
    elapsed = (time.perf_counter() - start) * 1000
    if not os.WIFEXITED(status):
        raise SystemExit(f"error: {argv} ended by a signal")
    cpu = (usage.ru_utime + usage.ru_stime) * 1000
    return elapsed, usage.ru_maxrss, first, os.WEXITSTATUS(status), cpu


def interleave(rounds, runners):
    """runners: name -> function(round) returning spawn()'s tuple. One run of each per round."""
    samples = {name: [] for name in runners}
    for name, run in runners.items():  # one warm-up run each (page cache, dynamic linker)
        run(-1)
    for index in range(rounds):
        for name, run in runners.items():
            samples[name].append(run(index))
    return samples


def summary(values, unit, digits=1):
    return f"{statistics.median(values):.{digits}f} {unit} ({min(values):.{digits}f}–{max(values):.{digits}f})"


def report(title, target, rows, reference):
    """rows: [(label, values, unit)]; the first row is the figure, `reference` names the row it is compared with."""
    print(f"\n{title}")
    print(f"  target: {target}")
    medians = {label: statistics.median(values) for label, values, _ in rows}
    for label, values, unit in rows:
        ratio = "" if label == reference else f"   {medians[label] / medians[reference]:.2f}× {reference}"
        print(f"  {label:<34} {summary(values, unit, 2 if unit == 'ms' and medians[label] < 20 else 1)}{ratio}")


def answers(email):
    return f"{email}\n{PASSWORD}\n{PASSWORD}\n".encode()


def checked(result, expected, what):
    if result[3] not in expected:
        raise SystemExit(f"error: {what} exited {result[3]}")
    return result


stamp = str(os.getpid())
print(f"{ROUNDS} interleaved rounds per figure unless noted; median (min–max) and the ratio to the reference")

# 1. exec to the first prompt, standard input at end of file (exit 66 after "Email:").
startup_db = os.path.join(TMP, "startup.sqlite")
# `signup` alone (the database from SIGNUP_DB) is what a person types; it skips the argument
# parser, which every other command line (here --db) goes through.
startup_rows = ["signup --db D, stdin at EOF", "signup alone (SIGNUP_DB=D)", "C floor (prompt, read a line)"]
samples = interleave(ROUNDS * 2, {
    startup_rows[0]: lambda i: checked(spawn([SIGNUP, "--db", startup_db]), {66}, "signup at EOF"),
    startup_rows[1]: lambda i: checked(spawn([SIGNUP], environment={**CHILD_ENV, "SIGNUP_DB": startup_db}), {66}, "signup at EOF"),
    startup_rows[2]: lambda i: checked(spawn([FLOOR]), {66}, "the C floor"),
})
report("exec → first prompt, stdin at EOF", "CPU within 3× the C floor (peak memory: scripts/bench-floors, at the end)",
       [(row, [s[0] for s in samples[row]], "ms") for row in startup_rows], startup_rows[2])
report("  the same runs' CPU time (user + system: what a busy machine's queue does not inflate)", "(none; for reading the above)",
       [(row, [s[4] for s in samples[row]], "ms") for row in startup_rows], startup_rows[2])

# 2. a full non-interactive sign-up (one Argon2id hash, one transaction) vs argon2(1).
signups_db = os.path.join(TMP, "signups.sqlite")
runners = {"signup, full sign-up": lambda i: checked(
    spawn([SIGNUP, "--quiet", "--db", signups_db], answers(f"a{stamp}.{i}@example.com")), {0}, "a sign-up")}
if ARGON2:
    # Same parameters as the store: Argon2id, m=19456 KiB (-k), t=2, p=1, 32-byte hash, 16-byte salt.
    runners["argon2 -id -t 2 -k 19456 -p 1"] = lambda i: checked(
        spawn([ARGON2, "saltsaltsaltsalt", "-id", "-t", "2", "-k", "19456", "-p", "1", "-l", "32", "-e"],
              PASSWORD.encode()), {0}, "argon2")
samples = interleave(ROUNDS, runners)
names = list(samples)
if ARGON2:
    report("full non-interactive sign-up vs the argon2 command (same password and parameters)",
           "CPU at most 0.8× argon2 (CPU below)",
           [(name, [s[0] for s in samples[name]], "ms") for name in names], names[1])
    report("  the same runs' CPU time (user + system)", "at most 0.8× argon2",
           [(name, [s[4] for s in samples[name]], "ms") for name in names], names[1])
    report("peak memory (ru_maxrss, as /usr/bin/time -f %M) of the same runs", "at most 1.2× argon2's",
           [(name, [s[1] / 1024 for s in samples[name]], "MiB") for name in names], names[1])
else:
    print("\nargon2 command missing: the sign-up vs argon2 figures are skipped")
# scripts/bench --hashing: the start-up and the sign-up against argon2 only.
if env.get("BENCH_HASHING_ONLY"):
    sys.exit(0)

if DJANGO:
    manage = DJANGO.split()
    django_env = dict(CHILD_ENV, DJANGO_SUPERUSER_PASSWORD=PASSWORD)
    rounds = max(5, ROUNDS // 3)
    samples = interleave(rounds, {
        "signup, full sign-up": lambda i: checked(
            spawn([SIGNUP, "--quiet", "--db", signups_db], answers(f"d{stamp}.{i}@example.com")), {0}, "a sign-up"),
        "Django createsuperuser --noinput": lambda i: checked(
            spawn(manage + ["createsuperuser", "--noinput", "--username", f"d{stamp}x{i}", "--email", f"d{stamp}.{i}@example.com"],
                  environment=django_env), {0}, "createsuperuser"),
    })
    print(f"\n(Django: {rounds} rounds)", end="")
    report("full sign-up vs Django's createsuperuser --noinput on SQLite (its default hasher)",
           "at least 12× faster than Django",
           [(name, [s[0] for s in samples[name]], "ms") for name in samples], "signup, full sign-up")
else:
    print(f"\nDjango skipped: {DJANGO_NOTE}")

# 3. a sign-up into a million accounts vs into an empty database (a fresh copy each round).
def into_empty(i):
    copy = os.path.join(TMP, f"empty-{i}.sqlite")
    with open(EMPTY, "rb") as source, open(copy, "wb") as target:
        target.write(source.read())
    os.chmod(copy, 0o600)
    result = checked(spawn([SIGNUP, "--quiet", "--db", copy], answers(f"e{stamp}.{i}@example.com")), {0}, "a sign-up")
    os.unlink(copy)
    return result

samples = interleave(ROUNDS, {
    "sign-up into 1,000,000 accounts": lambda i: checked(
        spawn([SIGNUP, "--quiet", "--db", MILLION], answers(f"m{stamp}.{i}@example.com")), {0}, "a sign-up"),
    "sign-up into an empty database": into_empty,
})
report("sign-up into a database of a million accounts vs an empty one", "within 1.1× the empty one",
       [(name, [s[0] for s in samples[name]], "ms") for name in samples], "sign-up into an empty database")

# 4. signup list of a million accounts vs sqlite3 -csv printing the same columns.
list_rounds = max(11, ROUNDS // 2)  # a second a run: fewer rounds than the rest, but enough for a median on a shared machine
runners = {"signup list": lambda i: checked(spawn([SIGNUP, "list", "--db", MILLION], first_line_after=1), {0}, "signup list")}
if SQLITE3:
    runners["sqlite3 -csv, same columns"] = lambda i: checked(spawn(
        [SQLITE3, "-readonly", "-csv", MILLION, "SELECT id, created_at, email FROM account ORDER BY id"], first_line_after=0),
        {0}, "sqlite3")
samples = interleave(list_rounds, runners)
print(f"\n({list_rounds} rounds)", end="")
names = list(samples)
if SQLITE3:
    report("`signup list` of a million accounts (to a pipe, drained) vs sqlite3 -csv", "within 1.5× sqlite3",
           [(name, [s[0] for s in samples[name]], "ms") for name in names], names[1])
    report("  the same runs' CPU time (user + system)", "(none; for reading the above)",
           [(name, [s[4] for s in samples[name]], "ms") for name in names], names[1])
    report("  its peak memory", "under 30 MiB",
           [(name, [s[1] / 1024 for s in samples[name]], "MiB") for name in names], names[1])
    report("  time to the first account row", "under 50 ms",
           [(name, [s[2] for s in samples[name]], "ms") for name in names], names[1])
else:
    print("\nsqlite3 missing: list figures without a reference")
    for label, index, unit in (("time", 0, "ms"), ("peak memory", 1, "MiB"), ("first row", 2, "ms")):
        values = [s[index] / (1024 if unit == "MiB" else 1) for s in samples["signup list"]]
        print(f"  signup list {label}: {summary(values, unit)}")
sys.stdout.flush()
