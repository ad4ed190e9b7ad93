"""The torture run behind scripts/torture (which installs, builds and starts what it needs).

Eight signup processes (--workers) work on one database at once, an SQLite file or a PostgreSQL
database: sign-ups (the password from a file, a pipe or the environment; public ones with their
limits, answers on a pipe), passwd, verify with and without a hash upgrade, disable, enable,
delete, import and list. Some commands are killed with SIGKILL at a random moment, some paused
(SIGSTOP) when they open the database; with --disk-full the SQLite file lives on a small tmpfs
that every second random round is filled up to 0-128 KiB.

Each worker owns its emails, so its own commands on them run one after the other and the
oracle knows what each email may hold (a killed command: all of its effect or none). Every
random round also races all workers to create one shared email, and every second round
(--race-every; the first) is a verify-upgrade race: in each group of four workers three verify upgrading
weak hashes, each paused once it opens the database again, while the fourth runs passwd,
disable and enable on its own account. After every round
(a burst of commands, then nothing running) the database is read directly (sqlite3, psql,
argon2-cffi) and compared with what the commands reported: an effect reported done that is
missing is *lost*; a damaged file, a key held twice, a half-written hash or an unknown state
is *corrupt*.

Every child has a time limit (a hang is a failure, with its command line); nothing is left
running or mounted. The passwords are throwaway ones, made here.
"""

import argparse
import collections
import json
import os
import random
import re
import select
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time

from argon2 import PasswordHasher
from argon2.exceptions import VerificationError, VerifyMismatchError, InvalidHashError
from argon2.low_level import Type, verify_secret

CHEAP_POLICY = {"base": "standard", "argon2": {"memoryKiB": 8192, "iterations": 1, "parallelism": 1}}
CHEAP_COSTS = (8192, 1)  # what create, passwd and import hash with here: cheap, so more commands run
STANDARD_COSTS = (19456, 2)  # the standard policy's: verify without a policy file upgrades to them
# Below every policy in memory and passes, so verify upgrades it under any rule that only ever raises costs.
WEAK = PasswordHasher(time_cost=1, memory_cost=4096, parallelism=1, hash_len=32, salt_len=16)
PHC = re.compile(r"\$argon2id\$v=19\$m=([0-9]+),t=([0-9]+),p=([0-9]+)\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}")
STATES = ("active", "disabled", "pending")
ADDRESSES = ("10.9.0.1", "10.9.0.2", "10.9.0.3")  # public sign-ups' client addresses, shared by workers
PER_CLIENT, OVERALL = 3, 7  # --limit-per-client, --limit-overall (window: an hour, longer than any run)
LETTERS = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
DAMAGE = ("malformed", "file is not a database", "cannot be checked", "disk image")
ABSENT = None  # a possibility: no row; else (state, password, origin)


def costs(phc):
    match = PHC.fullmatch(phc or "")
    return (int(match.group(1)), int(match.group(2)), int(match.group(3))) if match else None


def present(possible):
    return {p for p in possible if p is not ABSENT}


class Children:
    """Every signup process running, so that any way out kills them."""

    def __init__(self):
        self.lock = threading.Lock()
        self.live = set()

    def add(self, process):
        with self.lock:
            self.live.add(process)

    def discard(self, process):
        with self.lock:
            self.live.discard(process)

    def kill_all(self):
        with self.lock:
            for process in self.live:
                try:
                    process.kill()
                except OSError:
                    pass


CHILDREN = Children()


class Result:
    def __init__(self, code, out, err, hung, seconds):
        self.code, self.out, self.err, self.hung, self.seconds = code, out, err, hung, seconds

    @property
    def killed(self):
        return self.code == -signal.SIGKILL and not self.hung

    def label(self):
        return "hung" if self.hung else "SIGKILL" if self.killed else str(self.code)


class Fate:
    """What happens to a command from outside: SIGKILL after kill seconds; a pause (SIGSTOP,
    then SIGCONT) of stop_for seconds, stop_at seconds after the command held `descriptors`
    descriptors of the database file `watch` at once (0 or no watch: after it started)."""

    def __init__(self):
        self.kill = None
        self.stop_at = None
        self.stop_for = 0.0
        self.watch = None
        self.descriptors = 0
        self.paused = None  # an Event set once the pause began
        self.resume = None  # an Event that ends the pause (stop_for is then the longest)


def descriptors(pid, path):
    """How many descriptors of path the process holds (/proc/PID/fd)."""
    count = 0
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                count += os.readlink(f"/proc/{pid}/fd/{fd}") == path
            except OSError:
                pass
    except OSError:
        pass
    return count


def pause(process, fate, done):
    """The pause nemesis: a process stalled, as a loaded machine, swapping or a debugger stalls
    one, every lock it holds still held. It lands when the command opens the database, or opens
    it again while it holds it (a second connection, a check of the file): the moments its
    descriptors of the file change, where lock mistakes show."""
    if fate.watch and fate.descriptors:
        while descriptors(process.pid, fate.watch) < fate.descriptors:
            if done.wait(0.001):
                return
    if done.wait(fate.stop_at):
        return
    try:
        process.send_signal(signal.SIGSTOP)
        if fate.paused:
            fate.paused.set()
        (fate.resume or done).wait(fate.stop_for)
    finally:
        process.send_signal(signal.SIGCONT)


def run_child(argv, stdin=b"", env=None, timeout=60.0, fate=None, cwd=None):
    """Runs argv to its end, or to its fate; a child that outlives timeout is killed and reported as hung."""
    fate = fate or Fate()
    started = time.monotonic()
    process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env=env, cwd=cwd)
    CHILDREN.add(process)
    done = threading.Event()
    pauser = None
    if fate.stop_at is not None:
        pauser = threading.Thread(target=pause, args=(process, fate, done), daemon=True)
        pauser.start()
    hung = False
    try:
        try:
            out, err = process.communicate(stdin, timeout=timeout if fate.kill is None else min(fate.kill, timeout))
        except subprocess.TimeoutExpired:
            hung = fate.kill is None or fate.kill >= timeout
            process.kill()
            try:
                out, err = process.communicate(timeout=10)
            except subprocess.TimeoutExpired:  # a grandchild holds the pipes: give up on its output
                out, err = b"", b""
                process.wait()
    finally:
        done.set()
        if pauser:
            pauser.join()
        CHILDREN.discard(process)
    return Result(process.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), hung,
                  time.monotonic() - started)


class Reader:
    """Another program with the database open in a read transaction (sqlite3, psql), as a mail
    server or a backup has it: commit() ends the transaction, end() the program."""

    def __init__(self, argv, begin, env=None, timeout=30.0):
        self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True, env=env)
        CHILDREN.add(self.process)
        self.timeout = timeout
        self.reading = self._say(begin + "SELECT count(*) FROM account;\n")

    def _say(self, statements):
        """Sends statements ending in a query; whether its answer came."""
        try:
            self.process.stdin.write(statements)
            self.process.stdin.flush()
            ready = select.select([self.process.stdout], [], [], self.timeout)[0]
            return bool(ready) and self.process.stdout.readline() != ""
        except OSError:
            return False

    def commit(self):
        return self._say("COMMIT;\nSELECT 1;\n")

    def end(self):
        try:
            self.process.communicate("", timeout=self.timeout)
        except (subprocess.TimeoutExpired, OSError, ValueError):
            self.process.kill()
            self.process.wait()
        finally:
            CHILDREN.discard(self.process)


class SQLiteDatabase:
    kind = "sqlite"

    def __init__(self, folder, timeout):
        self.folder = folder
        self.path = os.path.join(folder, "accounts.sqlite")
        self.timeout = timeout
        self.note = ""
        self.watch = os.path.realpath(self.path)  # what /proc/PID/fd shows once a command opened it

    def signup_options(self, work):
        return ["--db", os.path.relpath(self.path, work)], {}

    def prepare(self):
        pass

    def drop(self):
        pass

    def _sql(self, statement, json_mode=False):
        argv = ["sqlite3", "-batch", "-cmd", ".timeout 10000"] + (["-json"] if json_mode else []) + [self.path, statement]
        result = run_child(argv, timeout=self.timeout)
        if result.code != 0:
            raise RuntimeError(f"sqlite3 {statement!r}: {result.label()}: {(result.err or result.out).strip()[:300]}")
        return result.out

    def reader(self):
        return Reader(["sqlite3", "-batch", self.path], "BEGIN;\n", timeout=self.timeout)

    def integrity(self):
        out = self._sql("PRAGMA integrity_check")
        lines = [line for line in out.splitlines() if line.strip()]
        return [] if lines == ["ok"] else lines

    def rows(self):
        out = self._sql("SELECT email, email_key, password_hash, state, origin FROM account", json_mode=True)
        return [(r["email"], r["email_key"], r["password_hash"], r["state"], r["origin"])
                for r in (json.loads(out) if out.strip() else [])]


class PostgresDatabase:
    kind = "postgres"

    def __init__(self, conninfo, name, timeout):
        if "://" in conninfo:
            raise SystemExit("torture: --pg takes a keyword/value conninfo (host=… port=… user=…), not a URL")
        self.admin = f"{conninfo} dbname=postgres"
        self.conninfo = f"{conninfo} dbname={name}"
        self.name = name
        self.timeout = timeout
        self.amcheck = False
        self.note = ""
        self.watch = None  # a socket: pauses count from the command's start

    def signup_options(self, work):
        # In the environment: a conninfo with a password is refused in --db, and fine there.
        return [], {"SIGNUP_DB": self.conninfo}

    def _psql(self, statement, database=None, csv=False):
        argv = ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", database or self.conninfo]
        argv += ["--csv"] if csv else ["-A", "-t"]
        env = dict(os.environ, PGCONNECT_TIMEOUT="10")
        result = run_child(argv + ["-c", statement], env=env, timeout=self.timeout)
        if result.code != 0:
            raise RuntimeError(f"psql: {result.label()}: {result.err.strip()[:300]}")
        return result.out

    def prepare(self):
        self._psql(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)', self.admin)
        self._psql(f'CREATE DATABASE "{self.name}"', self.admin)
        try:
            self._psql("CREATE EXTENSION IF NOT EXISTS amcheck")
            self.amcheck = True
        except RuntimeError as error:
            self.note = f"amcheck unavailable, only the unique key is checked ({error})"

    def drop(self):
        try:
            self._psql(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)', self.admin)
        except RuntimeError as error:
            print(f"torture: could not drop the database {self.name}: {error}", file=sys.stderr)

    def reader(self):
        return Reader(["psql", "-X", "-q", "-A", "-t", "-d", self.conninfo],
                      "BEGIN ISOLATION LEVEL REPEATABLE READ;\n",
                      env=dict(os.environ, PGCONNECT_TIMEOUT="10"), timeout=self.timeout)

    def integrity(self):
        if not self.amcheck:
            return []
        out = self._psql("SELECT bt_index_parent_check(indexrelid, true) FROM pg_index WHERE indrelid = 'account'::regclass;"
                         " SELECT blkno, offnum, msg FROM verify_heapam('account')")
        return [line for line in out.splitlines() if line.strip()]

    def rows(self):
        import csv
        out = self._psql("SELECT email, email_key, password_hash, state, origin FROM account", csv=True)
        table = list(csv.reader(out.splitlines()))
        return [(e, k, h, s, o or None) for e, k, h, s, o in table[1:]]


class Tally:
    """Checks passed and failed, failures by kind, thread-safe."""

    KINDS = ("lost", "corrupt", "upgrade", "limit", "hang", "unexpected", "harness")

    def __init__(self):
        self.lock = threading.Lock()
        self.passed = 0
        self.failures = []  # (kind, message)

    def check(self, ok, kind, message):
        with self.lock:
            if ok:
                self.passed += 1
            else:
                self.failures.append((kind, message))
        return ok

    def count(self, kind):
        with self.lock:
            return sum(1 for k, _ in self.failures if k == kind)


class Torture:
    """One backend's run: the workers, the model of every email, the checks."""

    def __init__(self, opts, database, work, seed):
        self.opts, self.db, self.work, self.seed = opts, database, work, seed
        self.tally = Tally()
        self.lock = threading.Lock()
        self.operations = 0
        self.kills = 0
        self.upgrades = 0  # verify commands that matched a weaker hash, with nothing else on it since the last check
        self.codes = collections.Counter()  # (command, exit label)
        self.storage_errors = collections.Counter()  # the last line of what exit 74 said
        self.model = {}  # email -> frozenset of possibilities
        self.owner = {}  # email -> worker index
        self.history = collections.defaultdict(list)  # email -> what was run on it, for reports
        self.tainted = set()  # emails whose model broke: anything goes until they are reset
        self.observed = {}  # email -> hash seen at the last check
        self.touched = set()  # emails whose hash a command may have changed this round
        self.expect_upgrade = {}  # email -> (m, t) a verify upgraded it to, as far as it said
        self.shared = collections.defaultdict(list)  # shared email -> attempts
        self.rounds = 0
        self.full_rounds = 0
        self.disk_full = False  # the database is on a tmpfs of its own, filled every second random round
        self.race_rounds = 0
        self.stopped = ""
        self.counter = 0
        self.home = os.path.join(work, "home")
        self.files = os.path.join(work, "files")
        os.makedirs(self.home, mode=0o700, exist_ok=True)
        os.makedirs(self.files, mode=0o700, exist_ok=True)
        self.cheap = self.write_file("policy.json", json.dumps(CHEAP_POLICY))
        self.db_args, db_env = database.signup_options(work)
        # The mail of a public sign-up (the notice to a taken address's owner) goes nowhere: a
        # configuration of its own, so that neither /etc/signup nor the machine's MTA takes part.
        config = os.path.join(work, self.write_file("signup.conf", "mail.command = /bin/dd of=/dev/null status=none\n"))
        self.env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": self.home, "LANG": "C.UTF-8",
                    "LC_ALL": "C.UTF-8", "TERM": "dumb", "NO_COLOR": "1", "COLUMNS": "80",
                    "SWIFT_BACKTRACE": "enable=no", "SIGNUP_CONFIG": config, **db_env}
        self.verified = {}  # (hash, password) -> bool

    # --- files and commands ---------------------------------------------------------

    def write_file(self, name, text):
        with self.lock:
            self.counter += 1
            path = os.path.join("files", f"{self.counter}-{name}")  # relative to the work folder, signup's own
        descriptor = os.open(os.path.join(self.work, path), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as file:
            file.write(text)
        return path

    def shown(self, argv, env_extra):
        """The command line as a person would type it again (the database included)."""
        prefix = " ".join(f"{k}={shlex.quote(v)}" for k, v in env_extra.items() if k != "SIGNUP_PASSWORD")
        if "SIGNUP_DB" in self.env:
            prefix = f"SIGNUP_DB={shlex.quote(re.sub(r'password=[^ ]*', 'password=…', self.env['SIGNUP_DB']))} " + prefix
        if "SIGNUP_PASSWORD" in env_extra:
            prefix += " SIGNUP_PASSWORD=…"
        return (prefix.strip() + " " if prefix.strip() else "") + "signup " + " ".join(shlex.quote(a) for a in argv + self.db_args)

    def signup(self, name, argv, stdin="", env_extra=None, fate=None, counted=True):
        """Runs one signup command, with its fate (a kill, a pause) if any."""
        env_extra = env_extra or {}
        result = run_child([self.opts.bin] + argv + self.db_args, stdin.encode(), {**self.env, **env_extra},
                           timeout=self.opts.command_timeout, fate=fate, cwd=self.work)
        result.command = self.shown(argv, env_extra)
        if counted:
            with self.lock:
                self.operations += 1
                self.kills += result.killed
                self.codes[(name, result.label())] += 1
                if result.code == 74:
                    self.storage_errors[(result.err.strip().splitlines() or ["(nothing)"])[-1][:160]] += 1
        self.tally.check(not result.hung, "hang", f"{result.command} did not end within {self.opts.command_timeout:g} s")
        if result.code is not None and result.code < 0 and not result.killed and not result.hung:
            self.tally.check(False, "unexpected", f"{result.command} died of signal {-result.code}: {result.err.strip()[-300:]}")
        damaged = next((word for word in DAMAGE if word in result.err), None)
        if damaged:
            self.tally.check(False, "corrupt", f"{result.command} met a damaged database (exit {result.label()}): "
                             + result.err.strip().splitlines()[-1][:300])
        return result

    def matches(self, phc, password):
        key = (phc, password)
        if key not in self.verified:
            try:
                self.verified[key] = verify_secret(phc.encode(), password.encode(), Type.ID)
            except (VerifyMismatchError, VerificationError, InvalidHashError):
                self.verified[key] = False
        return self.verified[key]

    # --- the model ------------------------------------------------------------------

    def settle(self, email, result, what, done, outcomes, allowed, writes):
        """Applies a command's outcome to the email's possibilities.

        done: the possibilities after it succeeded (empty: success is impossible in every state
        the email may be in); outcomes: exit code -> the possibilities that code leaves (a code
        that tells something about the state); allowed: the exit codes it documents."""
        self.history[email].append(f"round {self.rounds}: {result.command} -> {result.label()}")
        if writes and (result.killed or result.code == 0):
            self.touched.add(email)
            self.expect_upgrade.pop(email, None)
        if email in self.tainted:
            return
        possible = self.model[email]
        if result.killed:
            self.model[email] = frozenset(possible | done)  # all of its effect, or none
            return
        if result.hung:
            self.tainted.add(email)
            return
        if not self.tally.check(result.code in allowed, "unexpected",
                                f"{result.command} exited {result.code}, which {what} does not document here: "
                                + result.err.strip()[-300:]):
            self.tainted.add(email)
            return
        after = done if result.code == 0 else outcomes.get(result.code)
        if after is None:
            return  # a failure that changes nothing (74)
        if self.tally.check(bool(after), "lost",
                            f"{email}: {result.command} exited {result.code}, but the earlier commands on this "
                            f"email left it {self.describe(possible)}{self.recent(email)}"):
            self.model[email] = frozenset(after)
        else:
            self.tainted.add(email)

    @staticmethod
    def describe(possible):
        words = sorted({"absent" if p is ABSENT else p[0] for p in possible})
        return " or ".join(words) if words else "nothing"

    def recent(self, email):
        lines = self.history[email][-6:]
        return "".join(f"\n      {line}" for line in lines)

    # --- rounds ---------------------------------------------------------------------

    def setup(self, workers):
        """Each worker's emails; half of them start as accounts with weak imported hashes."""
        rows = []
        for worker in workers:
            for email in worker.emails:
                self.owner[email] = worker.index
                self.model[email] = frozenset({ABSENT})
                if worker.rng.random() < 0.5:
                    password = worker.password()
                    rows.append((email, password))
                    self.model[email] = frozenset({("active", password, None)})
        self.import_rows(rows, "setup")

    def import_rows(self, rows, why):
        """A setup import nobody kills: weak hashes, every row created."""
        hashes = {e: WEAK.hash(p) for e, p in rows}
        text = "email,password_hash\n" + "".join(f"{e},{h}\n" for e, h in hashes.items())
        path = self.write_file("setup.csv", text)
        result = self.signup("import", ["import", path, "--json"], counted=False)
        try:
            summary = json.loads(result.out)
        except ValueError:
            summary = {}
        if result.code != 0 or summary.get("created") != len(rows):
            raise Failure(f"the {why} import failed: {result.command} exited {result.label()}: {result.err.strip()[-300:]}")
        self.observed.update(hashes)

    def burst(self, workers, shared):
        barrier = threading.Barrier(len(workers))
        errors = []

        def body(worker):
            try:
                barrier.wait(timeout=60)
                worker.burst(shared)
            except Exception as error:  # a harness bug: reported, never hidden
                errors.append(f"worker {worker.index}: {type(error).__name__}: {error}")
                barrier.abort()

        threads = [threading.Thread(target=body, args=(w,), daemon=True) for w in workers]
        for thread in threads:
            thread.start()
        limit = time.monotonic() + self.opts.command_timeout * (self.opts.ops + 2) + 60
        for thread in threads:
            thread.join(max(0.0, limit - time.monotonic()))
        if any(thread.is_alive() for thread in threads):
            CHILDREN.kill_all()
            raise Failure("a worker did not finish its round")
        for error in errors:
            self.tally.check(False, "harness", error)
        if errors:
            raise Failure("a worker failed")

    def check(self, shared):
        """The oracle, with nothing running."""
        label = f"round {self.rounds}"
        try:
            problems = self.db.integrity()
        except RuntimeError as error:
            problems = [str(error)]
        if not self.tally.check(not problems, "corrupt", f"{label}: the integrity check says: " + "; ".join(problems[:6])):
            self.stopped = f"the database is damaged after {label}"
        try:
            rows = self.db.rows()
        except (RuntimeError, ValueError) as error:
            self.tally.check(False, "corrupt", f"{label}: the accounts cannot be read: {error}")
            self.stopped = f"the accounts cannot be read after {label}"
            return
        by_key = collections.defaultdict(list)
        for row in rows:
            by_key[row[1]].append(row)
        twice = {k: len(v) for k, v in by_key.items() if len(v) > 1}
        self.tally.check(not twice, "corrupt", f"{label}: the unique key does not hold: "
                         + ", ".join(f"{k} in {n} rows" for k, n in sorted(twice.items())[:6]))
        bad = [f"{e}: hash {h[:40]!r}" for e, _, h, _, _ in rows if not PHC.fullmatch(h or "")]
        bad += [f"{e}: state {s!r}" for e, _, _, s, _ in rows if s not in STATES]
        bad += [f"{e}: key {k!r}" for e, k, _, _, _ in rows if k != e]
        bad += [f"{e}: a row no command created" for e, _, _, _, _ in rows if e not in self.model and e not in self.shared]
        self.tally.check(not bad, "corrupt", f"{label}: rows that no command wrote so: " + "; ".join(bad[:6]))
        for email in sorted(self.model):
            self.observe(email, by_key.get(email, []), label)
        for email in shared:
            self.check_shared(email, by_key.get(email, []), label)
        origins = collections.Counter(row[4] for row in rows if row[4] is not None)
        over = {o: n for o, n in origins.items() if n > PER_CLIENT}
        self.tally.check(not over and sum(origins.values()) <= OVERALL, "limit",
                         f"{label}: public sign-ups over their limits ({PER_CLIENT} a client, {OVERALL} in all): "
                         f"{dict(origins)}")
        self.reset_tainted(by_key)
        self.touched.clear()
        self.expect_upgrade.clear()

    def observe(self, email, found, label):
        if len(found) > 1:
            self.tainted.add(email)
        row = found[0] if len(found) == 1 else None
        hash_before = self.observed.get(email)
        self.observed[email] = row[2] if row else None
        if email in self.tainted:
            return
        possible = self.model[email]
        if row is None:
            ok = ABSENT in possible
            match = ABSENT
        else:
            _, _, phc, state, origin = row
            match = next((p for p in present(possible)
                          if p[0] == state and p[2] == origin and self.matches(phc, p[1])), False)
            ok = match is not False
        if row is None:
            found_text = "absent"
        elif any(p[0] == row[3] and p[2] == row[4] for p in present(possible)):
            found_text = f"{row[3]} with another password than the reported commands leave"
        else:
            found_text = f"{row[3]}" + (f" (origin {row[4]})" if row[4] else "")
        if not self.tally.check(ok, "lost", f"{label}: {email} should be {self.describe(possible)} and is "
                                f"{found_text}{self.recent(email)}"):
            self.tainted.add(email)
            return
        self.model[email] = frozenset({match})
        if row is None:
            return
        if email in self.expect_upgrade:
            wanted = self.expect_upgrade[email]
            now = costs(row[2])
            # verify stores the upgrade or says in a note that it could not: silence and the old hash is a lost write.
            self.tally.check(now is not None and now[0] >= wanted[0] and now[1] >= wanted[1], "lost",
                             f"{label}: {email}: verify matched its weaker hash and gave no note, so the hash "
                             f"should have been upgraded to m={wanted[0]},t={wanted[1]}; it holds m,t,p = {now}"
                             f"{self.recent(email)}")
        if email not in self.touched and hash_before and hash_before != row[2]:
            old, now = costs(hash_before), costs(row[2])
            self.tally.check(old and now and all(n >= o for n, o in zip(now, old)), "upgrade",
                             f"{label}: {email}: an upgrade lowered a cost, {old} -> {now}{self.recent(email)}")

    def check_shared(self, email, found, label):
        attempts = self.shared.get(email, [])
        done = [a for a in attempts if a["outcome"] == "created"]
        taken = [a for a in attempts if a["outcome"] == "taken"]
        killed = [a for a in attempts if a["outcome"] == "killed"]
        said = "; ".join(f"{a['command']} -> {a['label']}" for a in attempts)
        if not self.tally.check(len(done) <= 1, "lost", f"{label}: {email}: {len(done)} concurrent creates all "
                                f"reported success: {said}"):
            return
        row = found[0] if len(found) == 1 else None
        if done:
            ok = row is not None and row[3] == "active" and self.matches(row[2], done[0]["password"])
            why = "the create that reported success is not what is stored"
        elif row is not None:
            ok = any(self.matches(row[2], a["password"]) for a in killed)
            why = "a row is stored that no create reported or could have left"
        else:
            ok = not taken
            why = "creates were told the email was taken, and no row holds it"
        self.tally.check(ok, "lost", f"{label}: {email}: {why}: {said}")

    def reset_tainted(self, by_key):
        for email in sorted(self.tainted):
            if not by_key.get(email):
                self.model[email] = frozenset({ABSENT})
                self.tainted.discard(email)
                continue
            result = self.signup("delete", ["delete", email, "--yes"], counted=False)
            if result.code in (0, 67):
                self.model[email] = frozenset({ABSENT})
                self.tainted.discard(email)
            self.observed[email] = None

    # --- a whole run ----------------------------------------------------------------

    def run(self, deadline):
        opts = self.opts
        rng = random.Random(self.seed)
        workers = [Worker(self, i, random.Random(rng.random())) for i in range(opts.workers)]
        self.db.prepare()
        started = time.monotonic()
        filler = None
        try:
            if not opts.race:
                self.setup(workers)
            while self.rounds < opts.rounds and time.monotonic() < deadline and not self.stopped:
                self.rounds += 1
                # Races first (rounds 1, 3, 5… with --race-every 2): a short run has the most of them.
                racing = opts.race or (opts.race_every and (self.rounds - 1) % opts.race_every == 0)
                # Every second random round on a full disk (a race there would only meet notes).
                full = self.disk_full and not racing and (self.rounds - self.race_rounds) % 2 == 0
                shared = []
                if racing:
                    self.race_rounds += 1
                    self.race_setup(workers)
                else:
                    shared = [f"shared{self.rounds}@example.org"]
                    for email in shared:
                        self.shared[email] = []
                if full:
                    filler = self.fill_disk(rng)
                    self.full_rounds += 1
                began = time.monotonic()
                if racing:
                    self.race(workers)
                else:
                    self.burst(workers, shared)
                if filler:
                    os.unlink(filler)
                    filler = None
                checking = time.monotonic()
                self.check(shared)
                if opts.verbose:
                    print(f"torture: {self.db.kind}: round {self.rounds}: burst {checking - began:.1f} s, "
                          f"check {time.monotonic() - checking:.1f} s", flush=True)
        except Failure as failure:
            self.tally.check(False, "harness", str(failure))
            self.stopped = str(failure)
        finally:
            if filler and os.path.exists(filler):
                os.unlink(filler)
        return time.monotonic() - started

    def race_setup(self, workers):
        """Fresh accounts for a verify-upgrade race: a weak hash for worker 0 to verify, an
        account for worker 1 to change."""
        rows = []
        for worker, role in zip(workers, ("verified", "changed")):
            email = f"r{self.rounds}-{role}@example.com"
            password = worker.password()
            worker.race_email = email
            self.owner[email] = worker.index
            self.model[email] = frozenset({("active", password, None)})
            rows.append((email, password))
        self.import_rows(rows, f"round {self.rounds}'s")

    def race(self, workers):
        """A verify-upgrade race, step by step. verify matches the weak hash of worker 0's account
        and is paused once it opens the database again, for the upgrade (on PostgreSQL, at a
        random moment); meanwhile `signup list` opens and closes the database, another program
        (sqlite3, psql) starts a read transaction, as a mail server or a backup does, and worker 1
        runs passwd, disable or enable on its own account; the reader commits but keeps the
        database open while verify goes on to its end.
        Every command must still have done what it reported. With nothing to pause (a verify
        that opens the database once) the steps simply run one after the other."""
        verifier, changer, lister = workers[0], workers[1], workers[2 % len(workers)]
        fate = Fate()
        fate.watch = self.db.watch
        fate.descriptors = 2 if fate.watch else 0
        fate.stop_at = 0.0 if fate.watch else verifier.rng.uniform(0, 0.3)
        fate.stop_for = self.opts.command_timeout / 2
        fate.paused, fate.resume = threading.Event(), threading.Event()
        errors = []

        def verify():
            try:
                verifier.verify(verifier.race_email, upgrade=True, fate=fate)
            except Exception as error:  # a harness bug: reported, never hidden
                errors.append(f"{type(error).__name__}: {error}")

        thread = threading.Thread(target=verify, daemon=True)
        thread.start()
        while thread.is_alive() and not fate.paused.wait(0.005):
            pass
        reader = None
        try:
            if fate.paused.is_set():
                lister.list(fate=Fate())
                reader = self.db.reader()
                self.tally.check(reader.reading, "harness", "race: the reader did not start its read transaction")
                changer.change(changer.race_email)
                self.tally.check(reader.commit(), "harness", "race: the reader did not commit")
        finally:
            fate.resume.set()
            thread.join(self.opts.command_timeout + 10)
            if reader:
                reader.end()
        for error in errors:
            self.tally.check(False, "harness", f"race: {error}")

    def fill_disk(self, rng):
        """Leaves 0-128 KiB free on the database's tmpfs; the caller removes the filler."""
        stat = os.statvfs(self.db.folder)
        free = stat.f_bavail * stat.f_frsize
        leave = rng.choice([0, 4096, 16384, 32768, 65536, 131072])
        path = os.path.join(self.db.folder, "filler")
        with open(path, "wb") as file:
            left = max(0, free - leave)
            chunk = b"\0" * (1 << 20)
            try:
                while left > 0:
                    left -= file.write(chunk[:min(left, len(chunk))])
            except OSError:
                pass  # full already
        return path

    def summary(self, seconds):
        name = self.db.kind
        t = self.tally
        kinds = [f"{self.race_rounds} verify-upgrade races"] if self.race_rounds else []
        kinds += [f"{self.full_rounds} on a full disk"] if self.full_rounds else []
        print(f"torture: {name}: " + ("" if self.opts.race else f"{self.opts.workers} processes at once, ")
              + f"{self.rounds} rounds" + (f" ({', '.join(kinds)})" if kinds else "")
              + f", {self.operations} operations, {self.kills} killed, {self.upgrades} upgrades, {seconds:.1f} s")
        failures = collections.defaultdict(collections.Counter)
        for (command, code), n in self.codes.items():
            if code not in ("0", "SIGKILL"):
                failures[code][command] += n
        ok = sum(n for (c, code), n in self.codes.items() if code == "0")
        print(f"torture: {name}: exit 0: {ok}; failures by exit code: "
              + ("; ".join(f"{code}: " + ", ".join(f"{c} {n}" for c, n in sorted(cs.items()))
                           for code, cs in sorted(failures.items(), key=lambda kv: (not kv[0].isdigit(), kv[0].zfill(4))))
                 or "none"))
        for line, n in self.storage_errors.most_common(3):
            print(f"torture: {name}: exit 74 ×{n}: {line}")
        if self.db.note:
            print(f"torture: {name}: note: {self.db.note}")
        others = ", ".join(f"{k} = {t.count(k)}" for k in Tally.KINDS[2:] if t.count(k))
        print(f"torture: {name}: lost = {t.count('lost')}, corrupt = {t.count('corrupt')}" + (f", {others}" if others else ""))
        if self.stopped:
            print(f"torture: {name}: stopped early: {self.stopped}")
        for kind, message in t.failures[:self.opts.show]:
            print(f"  {kind.upper()}: {message}")
        if len(t.failures) > self.opts.show:
            print(f"  … and {len(t.failures) - self.opts.show} more")


class Failure(Exception):
    pass


class Worker:
    """One stream of commands; it alone runs commands on its own emails."""

    # verify-upgrade (a matching weaker hash: verify writes the stronger one through a second
    # connection) weighs most; passwd, create and imports of weak hashes give it hashes to upgrade.
    WEIGHTS = (("create", 8), ("public", 3), ("import", 6), ("import-update", 5), ("passwd", 12),
               ("verify-upgrade", 24), ("verify", 4), ("verify-wrong", 1), ("disable", 4),
               ("enable", 4), ("delete", 5), ("list", 3))

    def __init__(self, torture, index, rng):
        self.t, self.index, self.rng = torture, index, rng
        self.emails = [f"w{index}-{k}@example.com" for k in range(torture.opts.emails)]
        self.address = ADDRESSES[index % len(ADDRESSES)]
        self.race_email = None  # its account in a verify-upgrade race
        weights = dict(self.WEIGHTS, **torture.opts.weight)
        self.kinds = list(weights)
        self.weights = list(weights.values())

    def password(self):
        return "Tq" + "".join(self.rng.choice(LETTERS) for _ in range(10)) + "-" + str(self.rng.randrange(10, 100))

    def fate(self):
        """SIGKILL 0-300 ms in (--kill-rate); a pause of 50-400 ms (--stop-rate) right after the
        command opened the database, or opened it again while holding it, or 0-300 ms in."""
        opts = self.t.opts
        fate = Fate()
        if self.rng.random() < opts.kill_rate:
            fate.kill = self.rng.uniform(0, 0.3)
        if self.rng.random() < opts.stop_rate:
            fate.stop_for = self.rng.uniform(0.05, 0.4)
            fate.watch = self.t.db.watch
            fate.descriptors = self.rng.choice([0, 1, 2, 2]) if fate.watch else 0
            fate.stop_at = self.rng.uniform(0, 0.3) if fate.descriptors == 0 else self.rng.uniform(0, 0.005)
        return fate

    def burst(self, shared):
        for email in shared:
            self.create_shared(email)
        for _ in range(self.t.opts.ops):
            kind = self.rng.choices(self.kinds, self.weights)[0]
            self.run(kind)

    def change(self, email):
        """passwd (which checkpoints the -wal after its commit), disable or enable (which leave
        theirs in it) of one of our accounts, run to its end."""
        command = self.rng.choice(["passwd", "disable", "enable"])
        if command == "passwd":
            self.passwd(email, fate=Fate())
        else:
            self.state(email, command, fate=Fate())

    def pick(self, want_absent):
        """An email of ours, most often one in the state the command needs."""
        usable = [e for e in self.emails if e not in self.t.tainted]
        if not usable:
            return None
        fitting = [e for e in usable if (ABSENT in self.t.model[e]) == want_absent]
        return self.rng.choice(fitting if fitting and self.rng.random() < 0.8 else usable)

    def pick_weak(self):
        """Most often an account of ours whose hash verify would upgrade (as last seen)."""
        t = self.t
        weak = [e for e in self.emails if e not in t.tainted and ABSENT not in t.model[e]
                and (costs(t.observed.get(e)) or STANDARD_COSTS)[:2] < STANDARD_COSTS]
        return self.rng.choice(weak) if weak and self.rng.random() < 0.8 else None

    def run(self, kind):
        if kind == "list":
            return self.list()
        if kind.startswith("import"):
            return self.import_(update=kind == "import-update")
        email = self.pick_weak() if kind == "verify-upgrade" else None
        email = email or self.pick(want_absent=kind in ("create", "public"))
        if email is None:
            return self.list()
        fate = self.fate()
        if kind == "create":
            self.create(email, fate)
        elif kind == "public":
            self.public(email, fate)
        elif kind == "passwd":
            self.passwd(email, fate)
        elif kind.startswith("verify"):
            self.verify(email, upgrade=kind == "verify-upgrade", fate=fate, wrong=kind == "verify-wrong")
        elif kind in ("disable", "enable"):
            self.state(email, kind, fate)
        elif kind == "delete":
            self.delete(email, fate)

    def password_source(self, password, email=None):
        """(options, stdin, environment) giving the password one of the documented ways."""
        how = self.rng.choice(["file", "env", "stdin"])
        if how == "file":
            return ["--password-file", self.t.write_file("pw", password + "\n")], "", {}
        if how == "env":
            return [], "", {"SIGNUP_PASSWORD": password}
        return [], (f"{email}\n" if email else "") + f"{password}\n{password}\n", {}

    def create(self, email, fate):
        t = self.t
        password = self.password()
        options, stdin, env = self.password_source(password, email)
        argv = ["--quiet", "--policy-file", t.cheap] + options + ([] if stdin else ["--email", email])
        as_json = self.rng.random() < 0.3
        result = t.signup("create", argv + (["--json"] if as_json else []), stdin, env, fate)
        if as_json and result.code in (0, 65):
            self.check_json(result, "created" if result.code == 0 else "invalid")
        possible = t.model[email]
        done = {("active", password, None)} if ABSENT in possible else set()
        t.settle(email, result, "a sign-up", done, {65: present(possible)}, {0, 65, 74}, writes=True)

    def public(self, email, fate):
        t = self.t
        password = self.password()
        # Without proof of the address (a script cannot read the mailed code), as an administrator
        # who relies on approval alone has it: a taken address then hears the success a free one
        # hears and changes nothing (its owner is mailed), so success leaves a present row as it was.
        argv = ["--public", "--no-prove-address", "--quiet", "--policy-file", t.cheap, "--limit-per-client",
                str(PER_CLIENT), "--limit-overall", str(OVERALL), "--limit-window", "3600"]
        env = {"SSH_CONNECTION": f"{self.address} {40000 + self.index} 127.0.0.1 22"}
        result = t.signup("public", argv, f"{email}\n{password}\n{password}\n", env, fate)
        possible = t.model[email]
        done = ({("pending", password, self.address)} if ABSENT in possible else set()) | present(possible)
        t.settle(email, result, "a public sign-up", done, {65: present(possible)}, {0, 65, 74, 75}, writes=True)

    def create_shared(self, email):
        """All workers at once: exactly one create of this email may report success."""
        t = self.t
        password = self.password()
        fate = self.fate()
        if self.rng.random() < 0.3:
            path = t.write_file("shared.csv", f"email,password\n{email},{password}\n")
            result = t.signup("import", ["import", path, "--json", "--policy-file", t.cheap], "", {}, fate)
            summary = self.summary(result)
            outcome = ("created" if summary.get("created") == 1 else "taken" if summary.get("taken") == 1 else "?") \
                if result.code == 0 else None
        else:
            options, stdin, env = self.password_source(password, email)
            argv = ["--quiet", "--policy-file", t.cheap] + options + ([] if stdin else ["--email", email])
            result = t.signup("create", argv, stdin, env, fate)
            outcome = {0: "created", 65: "taken"}.get(result.code)
        if result.killed:
            outcome = "killed"
        t.tally.check(outcome != "?" and (outcome is not None or result.code in (74,) or result.hung), "unexpected",
                      f"{result.command} exited {result.label()} racing for a shared email: {result.err.strip()[-300:]}")
        with t.lock:
            t.shared[email].append({"command": result.command, "label": result.label(), "outcome": outcome,
                                    "password": password})

    def passwd(self, email, fate):
        t = self.t
        password = self.password()
        options, stdin, env = self.password_source(password)
        result = t.signup("passwd", ["passwd", email, "--quiet", "--policy-file", t.cheap] + options, stdin, env, fate)
        possible = t.model[email]
        done = {(p[0], password, p[2]) for p in present(possible)}
        t.settle(email, result, "passwd", done, {67: possible & {ABSENT}}, {0, 67, 74}, writes=True)

    def verify(self, email, upgrade, fate, wrong=False):
        t = self.t
        possible = t.model[email]
        known = sorted({p[1] for p in present(possible)})
        password = self.password() if wrong or not known else self.rng.choice(known)
        argv = ["verify", email] + ([] if upgrade else ["--policy-file", t.cheap])
        result = t.signup("verify", argv, password + "\n", {}, fate)
        active = {p for p in present(possible) if p[0] == "active"}
        outcomes = {1: {p for p in active if p[1] != password},
                    67: possible & {ABSENT},
                    77: {p for p in present(possible) if p[0] != "active"}}
        done = {p for p in active if p[1] == password}
        untouched = email not in t.touched and email not in t.tainted
        t.settle(email, result, "verify", done, outcomes, {0, 1, 67, 74, 77}, writes=False)
        if result.code == 0 and untouched and "note:" not in result.err:
            policy = STANDARD_COSTS if upgrade else CHEAP_COSTS
            stored = costs(t.observed.get(email))
            if stored and policy[0] >= stored[0] and policy[1] >= stored[1] and policy != stored[:2]:
                t.expect_upgrade[email] = policy
                with t.lock:
                    t.upgrades += 1

    def state(self, email, command, fate):
        t = self.t
        wanted = "disabled" if command == "disable" else "active"
        possible = t.model[email]
        result = t.signup(command, [command, email], "", {}, fate)
        done = {(wanted, p[1], p[2]) for p in present(possible)}
        t.settle(email, result, command, done, {67: possible & {ABSENT}}, {0, 67, 74}, writes=False)

    def delete(self, email, fate):
        t = self.t
        possible = t.model[email]
        result = t.signup("delete", ["delete", email, "--yes"], "", {}, fate)
        done = {ABSENT} if present(possible) else set()
        t.settle(email, result, "delete", done, {67: possible & {ABSENT}}, {0, 67, 74}, writes=True)

    def import_(self, update):
        """A small file of our own emails: weak hashes (later upgraded) or passwords."""
        t = self.t
        usable = [e for e in self.emails if e not in t.tainted]
        if not usable:
            return self.list()
        emails = self.rng.sample(usable, min(len(usable), self.rng.randint(1, 3)))
        passwords = {e: self.password() for e in emails}
        hashed = self.rng.random() < 0.6
        field = "password_hash" if hashed else "password"
        value = {e: WEAK.hash(p) if hashed else p for e, p in passwords.items()}
        if self.rng.random() < 0.5:
            path = t.write_file("rows.csv", f"email,{field}\n" + "".join(f"{e},{value[e]}\n" for e in emails))
        else:
            path = t.write_file("rows.jsonl", "".join(json.dumps({"email": e, field: value[e]}) + "\n" for e in emails))
        argv = ["import", path, "--json", "--policy-file", t.cheap] + (["--update"] if update else [])
        before = {e: t.model[e] for e in emails}
        result = t.signup("import", argv, "", {}, self.fate())
        if result.code == 0:
            summary = self.summary(result)
            fresh = [e for e in emails if ABSENT in before[e]]
            surely = [e for e in emails if before[e] == {ABSENT}]
            created = summary.get("created", -1)
            t.tally.check(len(surely) <= created <= len(fresh)
                          and created + summary.get("updated", 0) + summary.get("taken", 0) == len(emails),
                          "lost", f"{result.command}: {summary} for {len(emails)} rows of which {len(surely)} to "
                                  f"{len(fresh)} were new" + "".join(t.recent(e) for e in emails))
        for email in emails:
            possible = before[email]
            done = {("active", passwords[email], None) if p is ABSENT else (p[0], passwords[email], p[2]) if update else p
                    for p in possible}
            t.settle(email, result, "import", done, {}, {0, 74}, writes=True)

    def list(self, fate=None):
        t = self.t
        result = t.signup("list", ["list", "--json"], "", {}, fate or self.fate())
        if result.code != 0:
            t.tally.check(result.killed or result.hung or result.code == 74, "unexpected",
                          f"{result.command} exited {result.label()}: {result.err.strip()[-300:]}")
            return
        try:
            listed = json.loads(result.out)
        except ValueError:
            t.tally.check(False, "corrupt", f"{result.command} printed no JSON array: {result.out[:200]!r}")
            return
        seen = collections.Counter(a.get("email") for a in listed)
        twice = [e for e, n in seen.items() if n > 1]
        t.tally.check(not twice, "corrupt", f"{result.command} listed emails more than once: {twice[:6]}")
        states = {a.get("email"): a.get("state") for a in listed}
        for email in (e for e in self.emails if e in t.model):
            possible = t.model[email]
            after = {p for p in present(possible) if p[0] == states[email]} if email in states else possible & {ABSENT}
            t.settle(email, result, "list", after, {}, {0}, writes=False)

    def summary(self, result):
        try:
            return json.loads(result.out) if result.code == 0 else {}
        except ValueError:
            return {}

    def check_json(self, result, status):
        try:
            answer = json.loads(result.out)
        except ValueError:
            answer = {}
        self.t.tally.check(answer.get("status") == status, "unexpected",
                           f"{result.command}: exit {result.code} with JSON {result.out.strip()[:200]!r}")


def mount_small_disk(folder, size):
    os.makedirs(folder, mode=0o700, exist_ok=True)
    result = run_child(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", folder], timeout=30)
    return result.code == 0, result.err.strip()


def main():
    parser = argparse.ArgumentParser(
        prog="scripts/torture",
        description="A randomized torture run of signup with an oracle: 8 processes at once on one SQLite file, "
                    "then one PostgreSQL database; random commands, SIGKILLs, pauses, races; after every round "
                    "what the commands reported is compared with what is stored. Prints lost = N and corrupt = N "
                    "per backend and exits 1 when any check failed.",
        epilog="scripts/torture gives --workdir, --bin (the debug build unless given) and --pg ($SIGNUP_TEST_PG, "
               "else a throwaway cluster of its own unless given).")
    parser.add_argument("--seed", type=int, help="the run's seed (default: random, printed)")
    parser.add_argument("--rounds", type=int, help="rounds per backend (default 10; 60 with --race; unbounded with --seconds)")
    parser.add_argument("--seconds", type=float, help="time budget for the whole run, shared by the backends")
    parser.add_argument("--workers", type=int, default=8, help="signup processes at once (default 8)")
    parser.add_argument("--ops", type=int, default=4, help="commands each worker runs per round (default 4)")
    parser.add_argument("--emails", type=int, default=5, help="emails each worker owns (default 5)")
    parser.add_argument("--kill-rate", type=float, help="share of commands SIGKILLed 0-300 ms in (default 0.15; 0 with --race)")
    parser.add_argument("--stop-rate", type=float, help="share of commands paused (SIGSTOP) for 50-400 ms, when they open the database or open it again "
                                                       "(default 0.25; 0 with --race)")
    parser.add_argument("--backend", choices=("sqlite", "postgres", "both"), default="both", help="(default both)")
    parser.add_argument("--bin", help="the signup binary")
    parser.add_argument("--pg", help="a PostgreSQL conninfo (keyword=value) where a database may be created")
    parser.add_argument("--disk-full", action="store_true",
                        help="SQLite on a small tmpfs, filled up to 0-128 KiB every second random round")
    parser.add_argument("--race", choices=("verify-upgrade",),
                        help="every round a race: in each group of four workers three verify upgrading weak "
                             "hashes, each paused once it opens the database again, while the fourth runs passwd, "
                             "disable and enable on its own account until they have ended")
    parser.add_argument("--race-every", type=int, default=2,
                        help="every Nth round of a random run is a verify-upgrade race (default 2; 0: never)")
    parser.add_argument("--command-timeout", type=float, default=60.0, help="a command running longer is a hang")
    parser.add_argument("--workdir", help="a private folder for the databases and files")
    parser.add_argument("--weight", action="append", default=[], metavar="COMMAND=N",
                        help="how often a command is chosen (repeatable), e.g. list=12; commands: "
                             + ", ".join(k for k, _ in Worker.WEIGHTS))
    parser.add_argument("--verbose", action="store_true", help="a line for every round")
    parser.add_argument("--show", type=int, default=25, help="failures printed per backend")
    opts = parser.parse_args()
    if not opts.bin or not opts.workdir:
        parser.error("--bin and --workdir are needed (scripts/torture gives them)")
    opts.bin = os.path.abspath(opts.bin)
    known = dict(Worker.WEIGHTS)
    try:
        opts.weight = {k: int(v) for k, v in (w.split("=", 1) for w in opts.weight)}
    except ValueError:
        parser.error("--weight takes COMMAND=N")
    if set(opts.weight) - set(known):
        parser.error(f"--weight: unknown command; known: {', '.join(known)}")
    opts.seed = opts.seed if opts.seed is not None else random.SystemRandom().randrange(1, 1 << 31)
    if opts.rounds is None:
        opts.rounds = 1 << 30 if opts.seconds else 60 if opts.race else 10
    if opts.kill_rate is None:
        opts.kill_rate = 0.0 if opts.race else 0.15
    if opts.stop_rate is None:
        opts.stop_rate = 0.0 if opts.race else 0.25
    if opts.workers < 2:
        parser.error("--workers: at least 2")
    backends = ["sqlite", "postgres"] if opts.backend == "both" else [opts.backend]
    if "postgres" in backends and not opts.pg:
        parser.error("--backend postgres needs --pg CONNINFO (scripts/torture starts a server when none is given)")

    def stop(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    started = time.monotonic()
    budget = opts.seconds or float("inf")
    print(f"torture: seed {opts.seed}; {', '.join(backends)}"
          + (f"; {opts.race} races only" if opts.race else f"; {opts.workers} processes, {opts.ops} commands each a round, "
                                                          f"{opts.kill_rate:.0%} killed, {opts.stop_rate:.0%} paused")
          + (f"; {opts.seconds:g} s" if opts.seconds else f"; {opts.rounds} rounds"), flush=True)
    runs = []
    mounted = None
    try:
        for n, backend in enumerate(backends):
            work = tempfile.mkdtemp(prefix=f"{backend}-", dir=opts.workdir)
            # SQLite gets three fifths of a shared budget: its file locking is signup's own work,
            # PostgreSQL's is the server's.
            share = {"sqlite": 0.6, "postgres": 0.4}
            spent = sum(share[b] for b in backends[:n + 1]) / sum(share[b] for b in backends)
            deadline = started + budget * spent
            if backend == "sqlite":
                folder = os.path.join(work, "db")
                if opts.disk_full:
                    ok, why = mount_small_disk(folder, "8m")
                    if ok:
                        mounted = folder
                    else:
                        print(f"torture: sqlite: no full-disk rounds: cannot mount a tmpfs ({why})")
                os.makedirs(folder, mode=0o700, exist_ok=True)
                database = SQLiteDatabase(folder, opts.command_timeout)
            else:
                database = PostgresDatabase(opts.pg, f"signup_torture_{os.getpid()}", opts.command_timeout)
            torture = Torture(opts, database, work, opts.seed)
            torture.disk_full = mounted is not None
            try:
                seconds = torture.run(deadline)
            except (RuntimeError, OSError) as error:  # psql, sqlite3 or the folder failed us
                torture.tally.check(False, "harness", f"{type(error).__name__}: {error}")
                torture.stopped, seconds = str(error), 0.0
            finally:
                database.drop()
                if mounted:
                    run_child(["umount", mounted], timeout=30)
                    mounted = None
            torture.summary(seconds)
            runs.append(torture)
            sys.stdout.flush()
    except KeyboardInterrupt:
        CHILDREN.kill_all()
        print("torture: interrupted", file=sys.stderr)
        return 130
    finally:
        CHILDREN.kill_all()
        if mounted:
            run_child(["umount", "-l", mounted], timeout=30)
    passed = sum(r.tally.passed for r in runs)
    failed = sum(len(r.tally.failures) for r in runs)
    print(f"torture: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
