#!/usr/bin/env python3
"""Counts echo leaks under a fast typist: RUNS runs of signup in a pseudo-terminal, each typing
the password the instant its prompt appears; with --ahead, together with the email, before the
Password: prompt exists; with --gap, 0 to 20 ms after the email's Enter, when the program is
between two prompts (checking the email); with --bad-email, a paste of a rejected email, the
password and its confirmation (the typed-ahead password must not show at the next prompt). A leak is a run whose terminal output holds the password.

    SIGNUP_BIN=.build/debug/signup python3 Tests/expect/fast-typist.py [--ahead | --gap | --bad-email] [RUNS]
"""
import os, random, sys, tempfile, time, pexpect

BIN = os.environ.get("SIGNUP_BIN", ".build/debug/signup")
PASSWORD = "Kq7-Lantern-Violet"
ahead = "--ahead" in sys.argv
gap = "--gap" in sys.argv
bad = "--bad-email" in sys.argv
runs = int(next((a for a in sys.argv[1:] if a.isdigit()), "200"))
folder = tempfile.mkdtemp(prefix="signup-fast-")
env = dict(TERM="xterm", LANG="C.UTF-8", LC_ALL="C.UTF-8", NO_COLOR="1", SWIFT_BACKTRACE="enable=no",
           HOME=folder, PATH="/usr/bin:/bin", COLUMNS="80", LINES="24")
leaks = failures = 0
for run in range(runs):
    child = pexpect.spawn(BIN, ["--db", folder + "/accounts.sqlite", "--dry-run"], env=env, timeout=10)
    child.delaybeforesend = None  # type at once, as a fast typist or a paste does
    seen = b""
    try:
        child.expect("Email: ")
        seen += child.before + child.after
        if bad:
            child.send("bad@example\r" + PASSWORD + "\r" + PASSWORD + "\r")
            child.expect("Email: ")
            seen += child.before + child.after
            time.sleep(0.2)
            child.send("\x15alice@example.com\r")
            child.expect("Password: ")
            seen += child.before + child.after
            child.send(PASSWORD + "\r")
        elif ahead:
            child.send("alice@example.com\r" + PASSWORD + "\r")
        elif gap:
            child.send("alice@example.com\r")
            time.sleep(random.uniform(0, 0.02))
            child.send(PASSWORD + "\r")
        else:
            child.send("alice@example.com\r")
            child.expect("Password: ")
            seen += child.before + child.after
            child.send(PASSWORD + "\r")
        child.expect("Confirm password: ")
        seen += child.before + child.after
        child.send(PASSWORD + "\r")
        child.expect(r"\[Y/n/e\] ")
        seen += child.before + child.after
        child.send("n\r")
        child.expect(pexpect.EOF)
        seen += child.before
    except pexpect.ExceptionPexpect:
        failures += 1
        seen += child.before if isinstance(child.before, bytes) else b""
    child.close(force=True)
    if PASSWORD.encode() in seen:
        leaks += 1
print(f"{'bad-email paste' if bad else 'type-ahead' if ahead else 'gap' if gap else 'instant'}: {leaks} leaks in {runs} runs ({failures} runs did not finish)")
sys.exit(1 if leaks else 0)
