#!/usr/bin/env python3
"""A loopback server that speaks PostgreSQL's protocol only to refuse, with a DETAIL, a HINT and a
CONTEXT that hold markers (and a line that looks like a row with a hash) over several lines.

usage: detail_server.py MODE
Prints its port on the first line of standard output, then answers every connection:
MODE `connect` refuses the login with a FATAL error; `fatal` lets the client in, then answers
its first statement with a FATAL error and hangs up (as a server that ends a session does);
`nostate` answers the first statement with an ERROR that has no SQLSTATE.
"""
import socket, struct, sys

mode = sys.argv[1]
listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen()
print(listener.getsockname()[1], flush=True)


def exactly(client, count):
    data = b""
    while len(data) < count:
        chunk = client.recv(count - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def message(kind, body):
    return kind + struct.pack("!i", len(body) + 4) + body


def error(severity, sqlstate=True):
    fields = [(b"S", severity), (b"V", severity)] + ([(b"C", b"XX000")] if sqlstate else []) + [
        (b"M", b"the primary message"),
        (b"D", b"MARKER-DETAIL\nFailing row contains (1, alice@example.com, $argon2id$MARKER-ROW)"),
        (b"H", b"MARKER-HINT"), (b"W", b"MARKER-CONTEXT")]
    return message(b"E", b"".join(code + value + b"\0" for code, value in fields) + b"\0")


def serve(client):
    while True:
        length, code = struct.unpack("!ii", exactly(client, 8))
        exactly(client, length - 8)
        if code in (80877103, 80877104):  # SSLRequest, GSSENCRequest: refused, the client goes on in clear
            client.sendall(b"N")
            continue
        break
    if mode == "connect":
        client.sendall(error(b"FATAL"))
        return
    settings = [(b"client_encoding", b"UTF8"), (b"server_version", b"15.0"), (b"standard_conforming_strings", b"on"),
                (b"integer_datetimes", b"on"), (b"DateStyle", b"ISO, MDY")]
    client.sendall(message(b"R", struct.pack("!i", 0))
                   + b"".join(message(b"S", name + b"\0" + value + b"\0") for name, value in settings)
                   + message(b"K", struct.pack("!ii", 1, 2)) + message(b"Z", b"I"))
    exactly(client, 1)
    exactly(client, struct.unpack("!i", exactly(client, 4))[0] - 4)
    if mode == "fatal":
        client.sendall(error(b"FATAL"))
        return
    client.sendall(error(b"ERROR", sqlstate=False) + message(b"Z", b"I"))
    client.recv(65536)


while True:
    client, _ = listener.accept()
    try:
        serve(client)
    except (EOFError, OSError):
        pass
    client.close()
