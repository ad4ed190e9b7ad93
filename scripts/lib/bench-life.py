"""The figures of an account's life (scripts/bench runs this; it can run alone):
import of 1,000 accounts against the hashing floor (1,000 x the Debian argon2 command's CPU
time at the same costs / cores) and against a shell loop of sign-ups, the peak memory of an
import, and passwd from a script against a sign-up. Not a test: nothing passes or fails.
usage: python3 scripts/lib/bench-life.py SIGNUP TMPDIR ROUNDS [LOOP_ACCOUNTS]"""
import os, resource, shutil, statistics, subprocess, sys, time

signup, tmp, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
loop_accounts = int(sys.argv[4]) if len(sys.argv) > 4 else 1000
env = {"PATH": "/usr/bin:/bin", "HOME": tmp, "LANG": "C.UTF-8"}
password = "Quartz-Lantern-58"
cores = os.cpu_count()

def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime

def run(arguments, stdin=b""):
    start = time.perf_counter()
    subprocess.run(arguments, input=stdin, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start

def fresh(name):
    path = os.path.join(tmp, name)
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix): os.remove(path + suffix)
    return path

print("\naccount's life: import, passwd")
argon2 = shutil.which("argon2")
floor = None
if argon2:
    samples = []
    for _ in range(20):
        before = children_cpu()
        subprocess.run([argon2, "somesaltsomesalt", "-id", "-t", "2", "-k", "19456", "-p", "1", "-l", "32", "-e"],
                       input=password.encode(), stdout=subprocess.DEVNULL, check=True)
        samples.append(children_cpu() - before)
    floor = 1000 * statistics.median(samples) / cores
    print(f"  hashing floor: 1000 x {statistics.median(samples) * 1000:.1f} ms CPU (Debian argon2, m=19456,t=2,p=1) / {cores} cores = {floor:.2f} s")
else:
    print("  (argon2 command missing: no hashing floor)")

# The import of N accounts against N argon2 commands at the same costs, interleaved (one import,
# then N commands, a round), CPU time (user + system) of each: what the hashing costs whatever
# the cores. N: BENCH_IMPORT_N (1000), rounds: BENCH_IMPORT_ROUNDS (3).
count = int(os.environ.get("BENCH_IMPORT_N", "1000"))
import_rounds = int(os.environ.get("BENCH_IMPORT_ROUNDS", "3"))
if argon2:
    rows = os.path.join(tmp, "rows.csv")
    with open(rows, "w") as out:
        out.write("email,password\n")
        for index in range(count):
            out.write(f"user{index}@example.com,Harbor-Tulip-{index}-Kite\n")
    cpu_import, cpu_argon2 = [], []
    for _ in range(import_rounds):
        db = fresh("versus.sqlite")
        before = children_cpu()
        subprocess.run([signup, "import", rows, "--db", db], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        cpu_import.append(children_cpu() - before)
        before = children_cpu()
        for index in range(count):
            subprocess.run([argon2, "somesaltsomesalt", "-id", "-t", "2", "-k", "19456", "-p", "1", "-l", "32", "-e"],
                           input=f"Harbor-Tulip-{index}-Kite".encode(), stdout=subprocess.DEVNULL, check=True)
        cpu_argon2.append(children_cpu() - before)
    a, b = statistics.median(cpu_import), statistics.median(cpu_argon2)
    print(f"  import of {count:,} accounts vs {count:,} argon2 commands (CPU, median of {import_rounds} interleaved; target at most 0.5x):"
          f" {a:.2f} s vs {b:.2f} s: {a / b:.2f}x")
# scripts/bench --hashing: the figures against argon2 only.
if os.environ.get("BENCH_HASHING_ONLY"):
    sys.exit(0)

csv = os.path.join(tmp, "thousand.csv")
with open(csv, "w") as out:
    out.write("email,password\n")
    for index in range(1000):
        out.write(f"user{index}@example.com,Harbor-Tulip-{index}-Kite\n")
times, cpu = [], []
for _ in range(max(1, rounds // 3)):
    db = fresh("import.sqlite")
    before = children_cpu()
    times.append(run([signup, "import", csv, "--db", db]))
    cpu.append(children_cpu() - before)
imported, imported_cpu = statistics.median(times), statistics.median(cpu)
ratio = f", {imported / floor:.2f}x the floor" if floor else ""
cpu_ratio = f" ({imported_cpu / (floor * cores):.2f}x the floor's CPU)" if floor else ""
print(f"  import of 1,000 accounts (SQLite, median of {len(times)}): {imported:.2f} s{ratio}; CPU {imported_cpu:.2f} s{cpu_ratio}")

db = fresh("loop.sqlite")
start = time.perf_counter()
for index in range(loop_accounts):
    subprocess.run([signup, "--quiet", "--db", db, "--email", f"user{index}@example.com"], env=dict(env, SIGNUP_PASSWORD=f"Harbor-Tulip-{index}-Kite"),
                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
loop = (time.perf_counter() - start) * 1000 / loop_accounts
print(f"  a shell loop of sign-ups: {loop:.1f} ms an account ({loop_accounts} measured): 1,000 in {loop:.1f} s; import is {loop / imported:.1f}x faster")

big = os.path.join(tmp, "big.csv")
with open(big, "w") as out:
    out.write("email,password\n")
    for index in range(100_000):
        out.write(f"user{index}@example.com,Harbor-Tulip-{index}-Kite\n")
for what, arguments in (("1,000 rows imported", [signup, "import", csv, "--db", fresh("peak.sqlite")]),
                        ("100,000 rows checked (--dry-run, no hashing)", [signup, "import", big, "--dry-run", "--db", fresh("peak2.sqlite")])):
    result = subprocess.run(["/usr/bin/time", "-f", "%M"] + arguments, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    print(f"  peak memory, {what}: {int(result.stderr.strip().splitlines()[-1]) / 1024:.1f} MiB")

db = fresh("passwd.sqlite")
subprocess.run([signup, "--quiet", "--db", db], input=f"alice@example.com\n{password}\n{password}\n".encode(), env=env,
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
samples = {"sign-up": [], "passwd": []}
for index in range(rounds):
    signup_db = fresh("signup-one.sqlite")
    samples["sign-up"].append(run([signup, "--quiet", "--db", signup_db], f"bob@example.com\n{password}\n{password}\n".encode()))
    samples["passwd"].append(run([signup, "passwd", "alice@example.com", "--quiet", "--db", db], f"{password}\n{password}\n".encode()))
one, two = statistics.median(samples["sign-up"]) * 1000, statistics.median(samples["passwd"]) * 1000
print(f"  passwd from a script {two:.1f} ms vs a sign-up {one:.1f} ms (medians of {rounds}, interleaved): ratio {two / one:.2f}")
