"""Drives `signup --public` through the real ssh client, as a stranger would (used by ssh.sh).

usage: ssh_drive.py PORT USER DB MODE [N]; prints one line per check, "FAIL …" for a failure.
The modes nocommand and noclose speak SSH through paramiko (Debian's python3-paramiko).
"""
import os, pty, random, re, select, signal, struct, subprocess, sys, termios, time, fcntl

port, user, db, mode = sys.argv[1:5]
count = int(sys.argv[5]) if len(sys.argv) > 5 else 1
SSH = ["ssh", "-tt", "-q", "-p", port, "-o", "StrictHostKeyChecking=no",
       "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR", "-o", "BatchMode=yes", f"{user}@127.0.0.1"]
PASSWORD = b"Quartz-Lantern-58"


def spawn(rows, cols):
    pid, fd = pty.fork()
    if pid == 0:
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        os.execvpe("ssh", SSH, dict(os.environ, TERM="xterm"))
    return pid, fd


def read_until(fd, needle, timeout=20):
    out, end = b"", time.time() + timeout
    while time.time() < end and needle not in out:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                out += os.read(fd, 65536)
            except OSError:
                break
    return out


def signup_processes():
    out = subprocess.run(["pgrep", "-f", f"signup --public .*{re.escape(db)}"], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def rss_kib(pid):
    try:
        return int(re.search(r"VmHWM:\s+(\d+)", open(f"/proc/{pid}/status").read()).group(1))
    except (OSError, AttributeError):
        return 0


def sign_up(fd, email, asked=False):
    seen = b"" if asked else read_until(fd, b"Email: ")
    os.write(fd, email.encode() + b"\r")
    seen += read_until(fd, b"Password: ")
    os.write(fd, PASSWORD + b"\r")
    seen += read_until(fd, b"Confirm password: ")
    os.write(fd, PASSWORD + b"\r")
    seen += read_until(fd, b"[Y/n/e] ")
    os.write(fd, b"y\r")
    return seen


def status(pid):
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def type_slowly(fd, keys, gaps=(0.03, 0.2, 0.12, 0.06, 0.17, 0.09, 0.2, 0.03)):
    """Types `keys` one at a time, 30 to 200 ms apart: a person, or a slow auto-type."""
    for index, key in enumerate(keys):
        if index:
            time.sleep(gaps[index % len(gaps)])
        os.write(fd, bytes([key]))


if mode == "tty":
    # A sign-up at a terminal, in a window of 65535 x 65535 grown again mid-session.
    pid, fd = spawn(65535, 65535)
    seen = read_until(fd, b"Email: ")
    peak = max([rss_kib(p) for p in signup_processes()] or [0])
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 65535, 65535, 0, 0))
    seen += sign_up(fd, "tty@example.com", asked=True) + read_until(fd, b"Account created")
    code = status(pid)
    print(f"tty: exit {code}, peak {peak} KiB at the first prompt in a 65535x65535 window")
    if code != 0 or b"Account created" not in seen: print("FAIL tty: no account created")
    if PASSWORD in seen: print("FAIL tty: the password was shown")
    if not 0 < peak < 100 * 1024: print("FAIL tty: memory at the first prompt")
elif mode == "many":
    # Sessions that sit at Email: until the idle timeout ends them.
    sessions = [spawn(65535, 65535) if i % 2 else spawn(24, 80) for i in range(count)]
    waiting = sum(b"Email: " in read_until(fd, b"Email: ") for _, fd in sessions)
    sizes = [rss_kib(p) for p in signup_processes()]
    codes = sorted({status(pid) for pid, _ in sessions})
    print(f"many: {count} clients, {waiting} at Email:, peak {max(sizes or [0])} KiB each at most, exit codes {codes}")
    if not sizes or max(sizes) > 100 * 1024: print("FAIL many: memory per session")
    if 75 not in codes or set(codes) - {75, 255}: print("FAIL many: sessions did not end at the idle timeout")
    if signup_processes(): print("FAIL many: signup processes left")
elif mode == "ctrlc":
    # Ctrl-C in the middle of a password, the rest typed over the connection with its Enter: the
    # rest never shows at the discard question nor answers it; "n" typed once it is there does,
    # and the sign-up goes on with the password typed whole.
    password, before, after = b"Violet-Lantern-Qx7-zq", b"Violet-Lantern-", b"Qx7-zq"
    pid, fd = spawn(24, 80)
    seen = read_until(fd, b"Email: ")
    os.write(fd, b"ctrlc@example.com\r")
    seen += read_until(fd, b"Password: ")
    type_slowly(fd, before)
    time.sleep(0.1)
    os.write(fd, b"\x03")
    time.sleep(0.06)
    type_slowly(fd, after + b"\r")
    question = b"Discard your answers? [y/N] "
    seen += read_until(fd, question)
    seen += read_until(fd, b"\0", timeout=1)  # and whatever comes by itself after it
    followed = seen[seen.find(question) + len(question):] if question in seen else b""
    os.write(fd, b"n\r")
    seen += read_until(fd, b"Password: ")
    for prompt in (b"Confirm password: ", b"[Y/n/e] "):
        os.write(fd, password + b"\r")
        seen += read_until(fd, prompt)
    os.write(fd, b"y\r")
    seen += read_until(fd, b"Account created")
    code = status(pid)
    shown = [after[i:i + 3].decode() for i in range(len(after) - 2) if after[i:i + 3] in seen]
    print(f"ctrlc: exit {code}, the discard question followed by {followed!r}, pieces of the rest shown: {shown}")
    if question not in seen or followed.strip():
        print("FAIL ctrlc: the discard question was written on or answered by the password's rest")
    if shown or password in seen: print("FAIL ctrlc: the password's rest was shown")
    if code != 0 or b"Account created" not in seen: print("FAIL ctrlc: the sign-up did not go on")
elif mode in ("nocommand", "noclose"):
    # A client of its own making, not OpenSSH's ssh: it logs in as the recipe lets anyone, then
    # opens a session and never gives it a command (nocommand), or runs signup and never
    # acknowledges the end of the session (noclose). Waits at most N seconds for sshd to close the
    # connection; prints how long it stayed open.
    import paramiko, socket
    transport = paramiko.Transport(socket.create_connection(("127.0.0.1", int(port))))
    transport.start_client(timeout=10)
    transport.auth_none(user)
    start = time.time()
    channel = transport.open_session()
    if mode == "nocommand":
        channel.get_pty()
    else:
        ended = []
        paramiko.Transport._channel_handler_table[paramiko.common.MSG_CHANNEL_CLOSE] = \
            lambda chan, message: ended.append(time.time() - start)
        channel.exec_command("")
    while transport.is_active() and time.time() - start < count:
        time.sleep(0.1)
    after = "" if mode == "nocommand" else f", signup ended after {ended[0]:.1f} s" if ended else ", signup never ended"
    print(f"{mode}: {'open' if transport.is_active() else 'closed'} after {time.time() - start:.1f} s{after}")
    transport.close()
elif mode == "hangup":
    # The client vanishes at a random moment after the answer to the review (mid-hash, mid-commit).
    for i in range(count):
        pid, fd = spawn(24, 80)
        sign_up(fd, f"hup{i}@example.com")
        time.sleep(random.uniform(0, 0.25))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    time.sleep(2)
    if signup_processes(): print("FAIL hangup: signup processes left")
