# Throwaway PostgreSQL clusters for the tests: in a temporary folder, on a loopback port and a
# socket in that folder, run by an unprivileged user (PostgreSQL refuses root). Sourced, not run.

# The newest installed server's programs (initdb, pg_ctl, pg_basebackup).
pg_bin() {
    ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1
}

# Runs a command as the cluster's owner: `nobody` when we are root, else ourselves.
pg_as_owner() {
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u nobody -- "$@"
    else
        "$@"
    fi
}

# A free loopback TCP port.
pg_free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# pg_init DIR: a new cluster in DIR/data (superuser `postgres`, trusted on the socket,
# SCRAM passwords over TCP), with DIR owned by the cluster's owner.
pg_init() {
    local dir="$1"
    mkdir -p "$dir"
    [ "$(id -u)" -eq 0 ] && chown nobody:nogroup "$dir"
    chmod 0755 "$dir"
    pg_as_owner "$(pg_bin)/initdb" -D "$dir/data" -U postgres -E UTF8 --locale=C.UTF-8 \
        --auth-local=trust --auth-host=scram-sha-256 --no-sync >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; return 1; }
    # Replication for the failover test's standby, from loopback only (first: the first match wins).
    sed -i '1i host replication postgres 127.0.0.1/32 trust' "$dir/data/pg_hba.conf"
}

# pg_start DIR PORT [EXTRA pg_ctl -o OPTIONS]: starts the cluster in DIR/data; its socket is DIR.
pg_start() {
    local dir="$1" port="$2"; shift 2
    pg_as_owner "$(pg_bin)/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-k $dir -p $port -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=150 $*" start >/dev/null \
        || { cat "$dir/server.log" >&2; return 1; }
}

# pg_stop DIR: stops the cluster at once (no error when it is not running).
pg_stop() {
    [ -d "$1/data" ] && pg_as_owner "$(pg_bin)/pg_ctl" -D "$1/data" -m immediate -w stop >/dev/null 2>&1 || true
}
