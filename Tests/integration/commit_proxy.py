#!/usr/bin/env python3
"""A loopback TCP proxy in front of PostgreSQL that breaks the first COMMIT, or a hang-up.

usage: commit_proxy.py MODE SERVER_PORT
Prints its own port on the first line of standard output, then forwards every connection.
The first time a client sends the simple-protocol message `COMMIT` the proxy hangs up on
the client: MODE `after` forwards the COMMIT and hangs up on both sides once the server
has answered (it committed; the client never hears so), MODE `before` closes both
sides without forwarding it (the server never gets it). Later connections,
like the one signup opens to find out what happened, are forwarded untouched.
MODE `linger` breaks no COMMIT: when the server closes a connection (after a FATAL error:
pg_terminate_backend, a shutdown) it passes on what the server said at once and closes the
client's side 3 seconds later, so the client reads the server's last error while its
connection still looks open, as a busy machine or a slow network can make it.
"""
import socket, sys, threading, time

COMMIT = b"Q\x00\x00\x00\x0bCOMMIT\x00"
mode, server_port = sys.argv[1], int(sys.argv[2])
broken = threading.Event()
lock = threading.Lock()


def pump(source, target, watch, answered):
    pending = b""
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            if not watch and answered.is_set():
                break
            if watch and mode != "linger" and not broken.is_set():
                pending = (pending + data)[-64:]
                if COMMIT in pending:
                    with lock:
                        first = not broken.is_set()
                        broken.set()
                    if first:
                        print("broke a COMMIT (%s)" % mode, file=sys.stderr, flush=True)
                        if mode == "after":
                            # Forward it; the other pump drops the server's answer and hangs up
                            # on both sides, so the server has committed before the client
                            # can notice anything.
                            answered.set()
                            target.sendall(data)
                            return
                        break
            target.sendall(data)
    except OSError:
        pass
    if mode == "linger" and not watch:
        time.sleep(3)
    hang_up(source)
    hang_up(target)


def hang_up(s):
    try:
        s.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    s.close()


listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", 0))
listener.listen(64)
print(listener.getsockname()[1], flush=True)
while True:
    client, _ = listener.accept()
    server = socket.create_connection(("127.0.0.1", server_port))
    answered = threading.Event()  # this connection's COMMIT went through: drop the server's answer
    threading.Thread(target=pump, args=(client, server, True, answered), daemon=True).start()
    threading.Thread(target=pump, args=(server, client, False, answered), daemon=True).start()
