"""signup against its peers, for scripts/bench (and scripts/bench --peers-only):
python3 scripts/lib/peers.py SIGNUP ROUNDS

The same three-field sign-up (Email, Password masked, Confirm password masked; then
Argon2id at m=19456,t=2,p=1 and an SQLite insert) written with each peer library, whose
sources are in scripts/bench-peers/. Each peer is built here when missing or older than its
source (into .build/bench-peers/), installing what it needs with apt-get (Debian's Rust and
Go libraries, built offline) or pip (a virtual environment there); a peer that cannot be
built is skipped with a one-line note, never the whole run.

Every program runs in its own pseudo-terminal (80×24, TERM=xterm, it the session leader),
all of them interleaved, one run each per round:
- spawn → `Email`: from posix_spawn to the moment the prompt's text is read from the
  terminal. Then, once every thread of the program is asleep (it waits for input), its
  resident memory is read from /proc/PID/status (VmRSS), and it is killed: its CPU time
  (user + system, from wait4) is what it spent to reach the prompt and wait there.
- full typed sign-up: each prompt is waited for (and the program left to fall asleep at
  it) before its answer is typed; the CPU time from wait4 at its exit.
- the stripped binary: a stripped copy's size (a Python program has none).
Medians; ratios against the C floor (start-up) and signup (the sign-up) of the same run.
Nothing here passes or fails on a number.
"""

import fcntl
import json
import os
import select
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SOURCES = os.path.join(ROOT, "scripts", "bench-peers")
BUILD = os.path.join(ROOT, ".build", "bench-peers")
PASSWORD = "Quartz-Lantern-58"
ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "TERM": "xterm", "COLUMNS": "80", "LINES": "24",
       "NO_COLOR": "1", "SWIFT_BACKTRACE": "enable=no"}
# A 0700 folder (signup refuses a database in a folder others can write), removed at the end.
TMP = tempfile.mkdtemp(prefix="signup-peers-")
# What a terminal answers to the queries some libraries send before their first prompt.
QUERIES = {b"\x1b[6n": b"\x1b[1;1R", b"\x1b]11;?": b"\x1b]11;rgb:0000/0000/0000\x1b\\"}


class Skip(Exception):
    """A peer that cannot be built: its one-line reason."""


def log(text):
    print(text, file=sys.stderr, flush=True)


def run(argv, cwd=None, env=None, what=None):
    """Runs a build step, its output to BUILD/build.log; raises Skip with its last line if it fails."""
    with open(os.path.join(BUILD, "build.log"), "ab") as out:
        out.write(f"$ {' '.join(argv)}\n".encode())
        out.flush()
        try:
            result = subprocess.run(argv, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL)
        except OSError as error:  # the tool itself is missing
            raise Skip(f"{what or argv[0]} failed: {error.strerror}: {argv[0]}")
    if result.returncode != 0:
        with open(os.path.join(BUILD, "build.log"), "rb") as log_file:
            last = log_file.read().decode(errors="replace").strip().splitlines()[-1]
        said = "" if last.startswith("$ ") else f": {last[:160]}"
        raise Skip(f"{what or argv[0]} exited {result.returncode}{said} (.build/bench-peers/build.log)")


def debian(*packages):
    """Installs the Debian packages that are missing (apt-get, as scripts/lib/setup.sh does)."""
    missing = [p for p in packages if subprocess.run(
        ["dpkg-query", "-W", "-f=${Status}", p], capture_output=True, text=True).stdout != "install ok installed"]
    if not missing:
        return
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    log(f"Installing Debian packages: {' '.join(missing)}")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    run(sudo + ["apt-get", "install", "-y", "-qq"] + missing, env=env, what=f"apt-get install {' '.join(missing)}")


def stale(output, *sources):
    """Whether output is missing or older than any file under sources."""
    if not os.path.exists(output):
        return True
    built = os.path.getmtime(output)
    for source in sources:
        for folder, _, files in os.walk(source) if os.path.isdir(source) else [("", [], [source])]:
            if any(os.path.getmtime(os.path.join(folder, f)) > built for f in files):
                return True
    return False


def copy_sources(name):
    """A fresh copy of scripts/bench-peers/NAME in BUILD (builds write lock files next to their sources)."""
    target = os.path.join(BUILD, f"{name}-src")
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(os.path.join(SOURCES, name), target)
    return target


def build_floor():
    output = os.path.join(BUILD, "floor")
    if stale(output, os.path.join(SOURCES, "floor.c")):
        run(["cc", "-O2", "-o", output, os.path.join(SOURCES, "floor.c")])
    return [output], output


def build_dialoguer():
    output = os.path.join(BUILD, "dialoguer-peer")
    if stale(output, os.path.join(SOURCES, "dialoguer")):
        debian("cargo", "rustc", "librust-dialoguer-dev", "librust-rust-argon2-dev", "librust-rusqlite-dev")
        source = copy_sources("dialoguer")
        home = os.path.join(BUILD, "cargo-home")  # not ~/.cargo: only Debian's vendored crates, offline
        os.makedirs(home, exist_ok=True)
        with open(os.path.join(home, "config.toml"), "w") as config:
            config.write('[source.crates-io]\nreplace-with = "debian"\n[source.debian]\n'
                         'directory = "/usr/share/cargo/registry"\n[net]\noffline = true\n')
        env = dict(os.environ, CARGO_HOME=home, RUSTC="/usr/bin/rustc", PATH="/usr/bin:/bin")
        run(["/usr/bin/cargo", "build", "--release", "--target-dir", os.path.join(BUILD, "cargo-target")],
            cwd=source, env=env, what="cargo build")
        shutil.copy2(os.path.join(BUILD, "cargo-target", "release", "dialoguer-peer"), output)
    return [output], output


def go_builder(name, tags, packages):
    def build():
        output = os.path.join(BUILD, name)
        if stale(output, os.path.join(SOURCES, "go")):
            debian("golang-go", "golang-golang-x-crypto-dev", "golang-github-mattn-go-sqlite3-dev", *packages)
            # GOPATH mode against Debian's sources: no module proxy, nothing fetched.
            env = dict(os.environ, GO111MODULE="off", GOPATH="/usr/share/gocode", GOFLAGS="",
                       GOCACHE=os.path.join(BUILD, "go-cache"), PATH="/usr/bin:/bin")
            run(["/usr/bin/go", "build", "-tags", tags, "-o", output, "."], cwd=copy_sources("go"), env=env,
                what="go build")
        return [output], output
    return build


def build_consolekit():
    output = os.path.join(BUILD, "consolekit-peer")
    if stale(output, os.path.join(SOURCES, "consolekit")):
        # The release flags of signup's own build (scripts/lib/setup.sh), so the two compare.
        flags = ["-c", "release", "--static-swift-stdlib", "--disable-local-rpath"]
        scratch = os.path.join(BUILD, "swift")
        source = copy_sources("consolekit")
        swift = shutil.which("swift") or "/opt/swift/usr/bin/swift"
        run([swift, "build", *flags, "--scratch-path", scratch], cwd=source, what="swift build")
        bin_path = subprocess.run([swift, "build", *flags, "--scratch-path", scratch, "--show-bin-path"],
                                  cwd=source, capture_output=True, text=True).stdout.strip()
        shutil.copy2(os.path.join(bin_path, "peer"), output)
    return [output], output


def python_builder(library):
    def build():
        venv = os.path.join(BUILD, "venv")
        python = os.path.join(venv, "bin", "python")
        if not os.path.exists(os.path.join(venv, "ready")):
            debian("python3-venv")
            shutil.rmtree(venv, ignore_errors=True)
            run([sys.executable, "-m", "venv", venv], what="python3 -m venv")
            run([python, "-m", "pip", "install", "-q", "click", "questionary", "argon2-cffi"], what="pip install")
            open(os.path.join(venv, "ready"), "w").close()
        return [python, os.path.join(SOURCES, "python_peer.py"), library], None
    return build


# name, builder, whether it stores (Argon2id + SQLite): in the order of the table's columns.
PEERS = [
    ("C floor", build_floor, False),
    ("Rust dialoguer", build_dialoguer, True),
    ("Go x/term", go_builder("go-xterm", "", ["golang-golang-x-term-dev"]), True),
    ("Go bubbletea", go_builder("go-bubbletea", "bubbletea", ["golang-github-charmbracelet-bubbletea-dev"]), True),
    ("Swift console-kit", build_consolekit, True),
    ("Python click", python_builder("click"), True),
    ("questionary", python_builder("questionary"), True),
]


class Terminal:
    """A program in its own pseudo-terminal: spawned, answered, timed, reaped."""

    def __init__(self, argv, environment=None):
        self.master, slave = os.openpty()
        fcntl.ioctl(self.master, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        name = os.ttyname(slave)
        self.start = time.perf_counter()
        # setsid then open: the terminal becomes the program's controlling terminal.
        self.pid = os.posix_spawn(argv[0], argv, dict(ENV, HOME=TMP, **(environment or {})), setsid=True, file_actions=[
            (os.POSIX_SPAWN_OPEN, 0, name, os.O_RDWR, 0), (os.POSIX_SPAWN_DUP2, 0, 1), (os.POSIX_SPAWN_DUP2, 0, 2)])
        os.close(slave)
        self.output = b""
        self.seen = 0  # where the next expected text is looked for

    def expect(self, text, timeout=20):
        """Reads until text appears after the last one; returns ms since spawn, answering terminal queries."""
        deadline = time.perf_counter() + timeout
        while True:
            found = self.output.find(text.encode(), self.seen)
            if found >= 0:
                self.seen = found + len(text)
                return (time.perf_counter() - self.start) * 1000
            left = deadline - time.perf_counter()
            if left <= 0 or not select.select([self.master], [], [], left)[0]:
                raise Skip(f"no {text!r} within {timeout} s; it showed {self.output[-80:]!r}")
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                raise Skip(f"ended before {text!r}; it showed {self.output[-80:]!r}")
            for query, answer in QUERIES.items():
                if query in chunk:
                    os.write(self.master, answer)
            self.output += chunk

    def settle(self, timeout=2):
        """Waits until every thread of the program sleeps (it waits for input)."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            try:
                states = [open(f"/proc/{self.pid}/task/{t}/stat").read().rsplit(")", 1)[1].split()[0]
                          for t in os.listdir(f"/proc/{self.pid}/task")]
            except OSError:
                return
            if "R" not in states:
                return
            time.sleep(0.0005)

    def rss(self):
        with open(f"/proc/{self.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return float("nan")

    def send(self, text):
        self.settle()
        os.write(self.master, text.encode())

    def finish(self, kill=False, timeout=20):
        """Reaps the program (killed first when kill); returns (exit status or None, CPU ms)."""
        if kill:
            os.kill(self.pid, signal.SIGKILL)
        deadline = time.perf_counter() + timeout
        while True:
            pid, status, usage = os.wait4(self.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                os.kill(self.pid, signal.SIGKILL)
                os.wait4(self.pid, 0)
                os.close(self.master)
                raise Skip(f"did not end within {timeout} s; it showed {self.output[-80:]!r}")
            if select.select([self.master], [], [], 0.05)[0]:
                try:
                    self.output += os.read(self.master, 65536)
                except OSError:
                    time.sleep(0.001)
        os.close(self.master)
        code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
        return code, (usage.ru_utime + usage.ru_stime) * 1000


def to_prompt(argv, marker, environment=None):
    """spawn → marker: (ms, CPU ms, RSS MiB at the prompt)."""
    terminal = Terminal(argv, environment)
    try:
        elapsed = terminal.expect(marker)
        terminal.settle()
        rss = terminal.rss()
    finally:
        _, cpu = terminal.finish(kill=True)
    return elapsed, cpu, rss


def typed(argv, steps):
    """A full typed sign-up: steps are (text to wait for, answer); returns CPU ms."""
    terminal = Terminal(argv)
    try:
        for text, answer in steps:
            terminal.expect(text)
            terminal.send(answer)
    except Skip:
        terminal.finish(kill=True)
        raise
    code, cpu = terminal.finish()
    if code != 0:
        raise Skip(f"a typed sign-up exited {code}; it showed {terminal.output[-120:]!r}")
    return cpu


def median(values, digits=1):
    return f"{statistics.median(values):.{digits}f}" if values else "–"


def main():
    signup, rounds = sys.argv[1], int(sys.argv[2])
    tmp = TMP
    print(f"\npeers: {os.cpu_count()} cores, load {' '.join(open('/proc/loadavg').read().split()[:3])} at the start",
          flush=True)
    os.makedirs(BUILD, exist_ok=True)
    programs, notes = [], []
    for name, build, stores in PEERS:
        try:
            argv, binary = build()
            programs.append((name, argv, binary, stores))
        except Skip as reason:
            notes.append(f"{name} skipped: {reason}")
            log(f"note: {name} skipped: {reason}")
    floor = 1 if programs and programs[0][0] == "C floor" else 0
    # `signup alone` (its database from SIGNUP_DB) is what a person types: it skips the
    # argument parser. Only its start-up is measured; its sign-up is signup's.
    programs[floor:floor] = [("signup", [signup], signup, True), ("signup alone", [signup], signup, False)]

    def argv_for(name, argv, db):
        return argv + (["--db", db] if name == "signup" else [] if name == "signup alone" else [db])

    def steps_for(name, email):
        answers = [("Email", email + "\r"), ("Password", PASSWORD + "\r"), ("Confirm password", PASSWORD + "\r")]
        if name == "signup":  # its hint says "Password requirements" first; then it reviews
            answers[1] = ("Password: ", PASSWORD + "\r")
            answers.append(("Create account?", "\r"))
        return answers

    startup = {name: [] for name, *_ in programs}
    signups = {name: [] for name, _, _, stores in programs if stores}
    failed = {}
    for index in range(-1, rounds):  # round -1 warms up (page cache, the loader) and is not counted
        for name, argv, _, stores in programs:
            if name in failed:
                continue
            try:
                startup_db = os.path.join(tmp, "startup.sqlite")
                figures = to_prompt(argv_for(name, argv, startup_db), "Email",
                                    {"SIGNUP_DB": startup_db} if name == "signup alone" else None)
                if index >= 0:
                    startup[name].append(figures)
                if stores:
                    db = os.path.join(tmp, f"{name.replace(' ', '-').replace('/', '-')}.sqlite")
                    cpu = typed(argv_for(name, argv, db), steps_for(name, f"r{index + 1}.{os.getpid()}@example.com"))
                    if index >= 0:
                        signups[name].append(cpu)
            except (Skip, OSError) as reason:  # OSError: it could not be started, or ended too soon
                failed[name] = str(reason)
                notes.append(f"{name} skipped: {reason}")
                log(f"note: {name} skipped: {reason}")
    shown = [(name, binary, stores) for name, _, binary, stores in programs if name not in failed]

    def stripped(binary):
        if binary is None:
            return "–"
        copy = os.path.join(tmp, "stripped")
        shutil.copy2(binary, copy)
        if subprocess.run(["strip", copy], stderr=subprocess.DEVNULL).returncode != 0:
            return "?"
        size = os.path.getsize(copy) / 1e6
        os.unlink(copy)
        return f"{size:.2f}" if size < 10 else f"{size:.1f}"

    floor_cpu = statistics.median(s[1] for s in startup["C floor"]) if "C floor" not in failed else None
    signup_cpu = statistics.median(signups["signup"]) if signups.get("signup") else None
    rows = [
        ("spawn → `Email` in a pty, ms", lambda n, b, s: median([x[0] for x in startup[n]], 2 if n == "C floor" else 1)),
        ("  its CPU time, ms", lambda n, b, s: median([x[1] for x in startup[n]], 2 if n == "C floor" else 1)),
        ("  CPU × the C floor", lambda n, b, s: f"{statistics.median(x[1] for x in startup[n]) / floor_cpu:.1f}×"
            if floor_cpu else "–"),
        ("RSS at the first prompt, MiB", lambda n, b, s: median([x[2] for x in startup[n]])),
        ("full typed sign-up with Argon2id + SQLite, CPU ms", lambda n, b, s: median(signups[n]) if s else "–"),
        ("  × signup", lambda n, b, s: f"{statistics.median(signups[n]) / signup_cpu:.2f}×" if s and signup_cpu else "–"),
        ("stripped binary, MB", lambda n, b, s: stripped(b)),
    ]
    print(f"{rounds} interleaved rounds (each: every program to its first prompt, then a typed sign-up); medians")
    print("\n| | " + " | ".join(name for name, _, _ in shown) + " |")
    print("|---|" + "---|" * len(shown))
    for label, cell in rows:
        cells = [cell(name, binary, stores) for name, binary, stores in shown]
        print(f"| {label} | " + " | ".join(f"**{c}**" if n.startswith("signup") else c
                                           for c, (n, _, _) in zip(cells, shown)) + " |")
    for note in notes:
        print(f"note: {note}")
    sys.stdout.flush()


def versions():
    """The peers' versions, as installed."""
    debian_versions = subprocess.run(
        ["dpkg-query", "-W", "-f=${Package} ${Version}, ", "librust-dialoguer-dev", "librust-rust-argon2-dev",
         "librust-rusqlite-dev", "golang-go", "golang-golang-x-term-dev", "golang-github-charmbracelet-bubbletea-dev",
         "golang-golang-x-crypto-dev", "golang-github-mattn-go-sqlite3-dev"], capture_output=True, text=True).stdout
    python = os.path.join(BUILD, "venv", "bin", "python")
    pypi = subprocess.run([python, "-m", "pip", "list", "--format=freeze"], capture_output=True, text=True).stdout \
        if os.path.exists(python) else ""
    pypi = ", ".join(line.replace("==", " ") for line in pypi.split() if line.split("==")[0] in
                     ("click", "questionary", "prompt_toolkit", "argon2-cffi"))
    state = os.path.join(BUILD, "swift", "workspace-state.json")
    kit = ""
    if os.path.exists(state):
        for dependency in json.load(open(state)).get("object", {}).get("dependencies", []):
            if dependency.get("packageRef", {}).get("identity") == "console-kit":
                kit = f"console-kit {dependency.get('state', {}).get('checkoutState', {}).get('version', '?')}"
    return f"{debian_versions}{pypi}, {kit}".strip(", ")


if __name__ == "__main__":
    try:
        main()
        print(f"versions: {versions()}")
        print(f"machine: {os.cpu_count()} cores, load {' '.join(open('/proc/loadavg').read().split()[:3])} at the end")
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
