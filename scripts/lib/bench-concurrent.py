"""Sign-ups at once against the hashing floor (scripts/bench runs this; it can run alone).

Each round, interleaved: the hashing floor, then COUNT sign-ups (`signup --quiet --email E --db D`,
password in SIGNUP_PASSWORD), WORKERS processes at a time, into each database named. The floor is
the same number of hashes at signup's costs (m=19456, t=2, p=1) through libsodium, the library
signup hashes with, and nothing else: WORKERS `signup-bench hashes` processes at once, COUNT /
WORKERS hashes each. The Debian argon2 command hashing them, WORKERS commands at a time, is a
second reference. A sign-up's figure is the floor's wall time over the sign-ups' (1.00x: as many
accounts a second as the machine hashes; higher is better), with the CPU an account costs: its
process's (wait4) and, for PostgreSQL, the server's (the postmaster's own and reaped children's
time in /proc, with its live children's). Every sign-up must exit 0 and every account be in the
database at the end: a failure or a lost account ends the run. Not a test: nothing passes or fails.

usage: python3 scripts/lib/bench-concurrent.py SIGNUP SIGNUP_BENCH ARGON2 ROUNDS COUNT WORKERS NAME:DB[@pid=POSTMASTER_PID_FILE] ...
ARGON2 may be empty (no argon2 row). The environment's PG* variables pass through (PGPASSFILE).
BENCH_BASELINE=OLD/signup measures OLD's sign-ups too, interleaved, each database a row "(before)"."""
import os, statistics, subprocess, sys, time

signup, helper, argon2 = sys.argv[1], sys.argv[2], sys.argv[3]
rounds, count, workers = int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
targets = []
for argument in sys.argv[7:]:
    name, _, rest = argument.partition(":")
    db, _, pidfile = rest.partition("@pid=")
    targets.append((name, db, pidfile or None, signup))
    # BENCH_BASELINE=OLD/signup: each database also gets OLD's sign-ups, interleaved (a change's before and after).
    if os.environ.get("BENCH_BASELINE"): targets.append((name + " (before)", db, pidfile or None, os.environ["BENCH_BASELINE"]))
tick = os.sysconf("SC_CLK_TCK")
env = {key: value for key, value in os.environ.items() if key.startswith("PG")}
env.update({"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/"), "LANG": "C.UTF-8", "SIGNUP_CONFIG": "/dev/null"})
password = "Quartz-Lantern-58"

def server_cpu(pidfile):
    """Seconds of CPU the cluster has used: the postmaster's own and its reaped children's, and its live children's."""
    if not pidfile: return 0.0
    with open(pidfile) as f: postmaster = f.readline().strip()
    total = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit(): continue
        try:
            with open(f"/proc/{pid}/stat") as f: fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if pid == postmaster:
            total += sum(int(v) for v in fields[11:15])  # utime stime cutime cstime
        elif fields[1] == postmaster:
            total += int(fields[11]) + int(fields[12])
    return total / tick

def at_once(commands):
    """Runs (argv, extra env, stdin bytes) commands WORKERS at a time: wall seconds, CPU seconds (wait4), failures."""
    pending, running, cpu, failures = list(commands), {}, 0.0, []
    start = time.perf_counter()
    while pending or running:
        while pending and len(running) < workers:
            argv, extra, stdin = pending.pop(0)
            process = subprocess.Popen(argv, env=dict(env, **extra), stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.PIPE)
            process.stdin.write(stdin); process.stdin.close()
            running[process.pid] = (process, argv)
        pid, status, usage = os.wait4(-1, 0)
        if pid not in running: continue
        process, argv = running.pop(pid)
        process.returncode = os.waitstatus_to_exitcode(status)
        cpu += usage.ru_utime + usage.ru_stime
        if process.returncode != 0:
            failures.append(f"{' '.join(argv[:4])}: exit {process.returncode}: {process.stderr.read().decode(errors='replace').strip()}")
        process.stderr.close()
    return time.perf_counter() - start, cpu, failures

def stored(db, emails):
    """How many of `emails` the database holds (one `signup list`)."""
    listing = subprocess.run([signup, "list", "--db", db], env=env, capture_output=True, text=True)
    if listing.returncode != 0: sys.exit(f"signup list --db {db} failed: {listing.stderr.strip()}")
    listed = set(listing.stdout.split())
    return sum(1 for email in emails if email in listed)

floors = {"libsodium": {"wall": [], "cpu": []}, "argon2": {"wall": [], "cpu": []}}
figures = {name: {"wall": [], "cpu": [], "server": []} for name, _, _, _ in targets}
for round in range(rounds):
    share = [count // workers + (1 if n < count % workers else 0) for n in range(workers)]
    wall, cpu, failures = at_once([([helper, "hashes", str(n)], {}, b"") for n in share if n])
    if failures: sys.exit("signup-bench hashes failed: " + failures[0])
    floors["libsodium"]["wall"].append(wall); floors["libsodium"]["cpu"].append(cpu / count)
    if argon2:
        wall, cpu, failures = at_once([([argon2, f"saltsalt{n:08d}", "-id", "-t", "2", "-k", "19456", "-p", "1", "-l", "32", "-e"], {},
                                        f"{password}-{n}".encode()) for n in range(count)])
        if failures: sys.exit("argon2 failed: " + failures[0])
        floors["argon2"]["wall"].append(wall); floors["argon2"]["cpu"].append(cpu / count)
    for index, (name, db, pidfile, binary) in enumerate(targets):
        emails = [f"c{round}-{index}-{n}-{os.getpid()}@example.com" for n in range(count)]
        before = server_cpu(pidfile)
        wall, cpu, failures = at_once([([binary, "--quiet", "--email", email, "--db", db],
                                        {"SIGNUP_PASSWORD": f"{password}-{n}"}, b"") for n, email in enumerate(emails)])
        server = server_cpu(pidfile) - before
        if failures: sys.exit(f"{name}: {len(failures)} of {count} sign-ups failed, the first: {failures[0]}")
        found = stored(db, emails)
        if found != count: sys.exit(f"{name}: {count - found} of {count} accounts reported created are not in the database")
        figures[name]["wall"].append(wall); figures[name]["cpu"].append(cpu / count); figures[name]["server"].append(server / count)

m = statistics.median
floor = floors["libsodium"]["wall"]
print(f"{count} sign-ups, {workers} processes at once, against the hashing floor: the same {count} hashes through libsodium"
      f" (signup's library, m=19456, t=2, p=1), {workers} processes at once; median of {rounds} interleaved rounds")
print("  target: PostgreSQL at least 0.9x the floor, no failure, no account lost")
print(f"  {'hashing floor (libsodium, hashes only)':<44} {count / m(floor):6.1f} accounts/s   1.00x            CPU {m(floors['libsodium']['cpu']) * 1000:5.1f} ms a hash")
rows = [(name, figures[name]["wall"], figures[name]["cpu"], pidfile and figures[name]["server"]) for name, _, pidfile, _ in targets]
if argon2: rows.insert(0, ("argon2 command, same costs", floors["argon2"]["wall"], floors["argon2"]["cpu"], None))
for name, walls, cpus, server in rows:
    ratios = [f / w for f, w in zip(floor, walls)]
    extra = f" + server {m(server) * 1000:4.1f} ms" if server else ""
    print(f"  {name:<44} {count / m(walls):6.1f} accounts/s   {m(ratios):.2f}x ({min(ratios):.2f}-{max(ratios):.2f})   CPU {m(cpus) * 1000:5.1f} ms an account{extra}")
print(f"  every sign-up exited 0 and every account was listed afterwards ({rounds * count * len(targets)} accounts)")
