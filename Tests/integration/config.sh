#!/usr/bin/env bash
# The system's configuration, /etc/signup/signup.conf, with all five levels: the command line, the
# environment, the user's file, the system's file and the defaults; a system file or folder that
# others can write refused with nothing written; a sign-up, verify and list that take the database
# and the Argon2 costs from the system file alone; a reader who is not root accepting root's file.
# The real /etc is never touched: the script runs itself again in a mount namespace of its own
# (unshare --mount) where an overlay over /etc, its upper layer in a temporary folder, holds
# /etc/signup. Each check prints "config: PASS|FAIL …"; the script fails if any failed.
# usage: SIGNUP_BIN=… config.sh   (as root; SKIP otherwise)
set -euo pipefail
: "${SIGNUP_BIN:?}"
if [ "$(id -u)" -ne 0 ]; then echo "config: SKIP, these checks need root (a mount namespace over /etc)"; exit 0; fi
if [ -z "${SIGNUP_CONFIG_NAMESPACE:-}" ]; then
    tmp="$(mktemp -d /tmp/signup-config.XXXXXX)"
    chmod 0755 "$tmp"
    trap 'rm -rf "$tmp"' EXIT
    mkdir "$tmp/upper" "$tmp/work"
    status=0
    SIGNUP_CONFIG_NAMESPACE="$tmp" unshare --mount --propagation private bash -c '
        mount -t overlay overlay -o "lowerdir=/etc,upperdir=$SIGNUP_CONFIG_NAMESPACE/upper,workdir=$SIGNUP_CONFIG_NAMESPACE/work" /etc \
            && exec bash "$0"' "$(realpath "$0")" || status=$?
    exit "$status"
fi
tmp="$SIGNUP_CONFIG_NAMESPACE"
# Only this namespace's /etc: what the machine holds never reaches its own /etc.
[ "$(findmnt -n -o FSTYPE /etc)" = overlay ] || { echo "config: FAIL /etc is not the overlay"; exit 1; }
unset SIGNUP_CONFIG SIGNUP_DB XDG_CONFIG_HOME
export HOME="$tmp/home" LANG=C.UTF-8 SWIFT_BACKTRACE=enable=no
install -d -m 0755 "$HOME" "$HOME/.config" "$HOME/.config/signup" "$tmp/data"
rm -rf /etc/signup
install -d -m 0755 /etc/signup
system=/etc/signup/signup.conf
user="$HOME/.config/signup/signup.conf"
password="Quartz-Lantern-58"

failures=0
check() {  # check DESCRIPTION COMMAND...
    if "${@:2}"; then echo "config: PASS $1"; else echo "config: FAIL $1"; failures=$((failures + 1)); fi
}
# shown KEY [ARGS...]: the "ORIGIN  KEY = VALUE" line signup config prints for KEY, blanks squeezed.
shown() { local key="$1"; shift; "$SIGNUP_BIN" config "$@" | tr -s ' ' | grep -E "^[^#].* $key = " ; }
export -f shown
export SIGNUP_BIN

# The system's file alone: a sign-up with no option at all takes its database and costs.
cat > "$system" <<EOF
# the administrator's settings
database = $tmp/data/system.sqlite
argon2.memory = 12288
argon2.passes = 3
public.overall = 7
EOF
chmod 0644 "$system"
check "a sign-up with no option stores in the system file's database" \
    bash -c 'SIGNUP_PASSWORD="$1" "$SIGNUP_BIN" --quiet --email alice@example.com </dev/null >/dev/null && [ -f "$2" ]' _ "$password" "$tmp/data/system.sqlite"
check "the stored hash has the system file's costs (m=12288, t=3, p=1)" \
    bash -c '[[ "$(python3 -c "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(\"SELECT password_hash FROM account\").fetchone()[0])" "$1")" == "\$argon2id\$v=19\$m=12288,t=3,p=1\$"* ]]' _ "$tmp/data/system.sqlite"
check "verify and list use the system file's database" \
    bash -c '"$SIGNUP_BIN" verify alice@example.com <<<"$1" >/dev/null 2>&1 && "$SIGNUP_BIN" list | grep -q alice@example.com && [ "$("$SIGNUP_BIN" list --count-old-hashes 2>/dev/null)" = 0 ]' _ "$password"
check "nothing else was made: no default database" test ! -e "$HOME/.local/share/signup/accounts.sqlite"
check "signup config names the system file and its line" \
    bash -c '[ "$(shown database)" = "$1:2 database = $2" ] && [ "$(shown argon2.memory)" = "$1:3 argon2.memory = 12288" ]' _ "$system" "$tmp/data/system.sqlite"

# The user's file over the system's, key by key; the environment over both; the command line over all.
printf 'database = user.sqlite\npublic.overall = 9\n' > "$user"
chmod 0600 "$user"
check "the user's file wins over the system's for a key both set" \
    bash -c '[ "$(shown database)" = "$1:1 database = $2" ] && [ "$(shown public.overall)" = "$1:2 public.overall = 9" ]' _ "$user" "$HOME/.config/signup/user.sqlite"
check "the system's file still gives what the user's file does not set" \
    bash -c '[ "$(shown argon2.passes)" = "$1:4 argon2.passes = 3" ]' _ "$system"
check "SIGNUP_DB wins over both files" \
    bash -c '[ "$(SIGNUP_DB=/srv/env.sqlite shown database)" = "environment SIGNUP_DB database = /srv/env.sqlite" ]'
check "--db wins over SIGNUP_DB" \
    bash -c '[ "$(SIGNUP_DB=/srv/env.sqlite shown database --db /srv/cli.sqlite)" = "command line --db database = /srv/cli.sqlite" ]'
check "a key no level sets is the default" \
    bash -c '[ "$(shown public.per-client)" = "default public.per-client = 3" ] && [ "$(shown argon2.parallelism)" = "policy argon2.parallelism = 1" ]'
check "XDG_CONFIG_HOME places the user's file" \
    bash -c 'mkdir -p "$1/xdg/signup" && printf "public.per-client = 4\n" > "$1/xdg/signup/signup.conf" && chmod 0600 "$1/xdg/signup/signup.conf" \
        && [ "$(XDG_CONFIG_HOME="$1/xdg" shown public.per-client)" = "$1/xdg/signup/signup.conf:1 public.per-client = 4" ] \
        && [ "$(XDG_CONFIG_HOME="$1/xdg" shown argon2.memory)" = "/etc/signup/signup.conf:3 argon2.memory = 12288" ]' _ "$tmp"

# An explicit file replaces both.
printf 'public.per-client = 5\n' > "$tmp/explicit.conf"
chmod 0600 "$tmp/explicit.conf"
check "SIGNUP_CONFIG replaces the user's and the system's files" \
    bash -c '[ "$(SIGNUP_CONFIG="$1" shown argon2.memory)" = "policy argon2.memory = 19456" ] && [ "$(SIGNUP_CONFIG="$1" shown public.per-client)" = "$1:1 public.per-client = 5" ]' _ "$tmp/explicit.conf"
check "--config /dev/null reads no file: every setting is the default" \
    bash -c '! "$SIGNUP_BIN" config --config /dev/null | grep -v "^#" | grep -v -e "^default " -e "^policy "'

# A system file or folder that others can write is refused, and nothing is written.
rm -f "$user"
chmod 0664 "$system"
check "a group-writable system file is refused naming it, with exit 64, and nothing is created" \
    bash -c 'status=0; err="$(SIGNUP_PASSWORD="$1" "$SIGNUP_BIN" --quiet --email bob@example.com </dev/null 2>&1)" || status=$?
        [ "$status" = 64 ] && [ "$err" = "error: /etc/signup/signup.conf cannot be used: other users can write it (mode 0664)" ] \
        && [ "$("$SIGNUP_BIN" list --config /dev/null --db "$2" | grep -c example.com)" = 1 ]' _ "$password" "$tmp/data/system.sqlite"
chmod 0644 "$system"
chmod 0775 /etc/signup
check "a group-writable /etc/signup is refused" \
    bash -c 'status=0; err="$("$SIGNUP_BIN" list 2>&1)" || status=$?; [ "$status" = 64 ] && [[ "$err" == *"the folder /etc/signup can be written by other users (mode 0775)"* ]]'
chmod 0755 /etc/signup
chown nobody "$system"
check "a system file another user owns is refused" \
    bash -c 'status=0; err="$("$SIGNUP_BIN" list 2>&1)" || status=$?; [ "$status" = 64 ] && [[ "$err" == *"it belongs to user nobody"* ]]'
chown root "$system"
printf 'database = %s\nargon2.memory = 12288\nargon2.memory = 12288\n' "$tmp/data/system.sqlite" > "$system"
check "a malformed system file is refused naming its line" \
    bash -c 'status=0; err="$("$SIGNUP_BIN" list 2>&1)" || status=$?; [ "$status" = 64 ] && [ "$err" = "error: /etc/signup/signup.conf, line 3: argon2.memory is set twice (first on line 2)" ]'

# Another user reads root's system file (0644 in a 0755 folder): it is trusted, as root owns it.
printf 'public.overall = 11\n' > "$system"
if runuser -u nobody -- test -x "$SIGNUP_BIN"; then
    check "a user who is not root takes root's system file" \
        bash -c '[ "$(runuser -u nobody -- env HOME=/nonexistent "$SIGNUP_BIN" config | tr -s " " | grep " public.overall = ")" = "/etc/signup/signup.conf:1 public.overall = 11" ]'
else
    echo "config: SKIP a user who is not root takes root's system file (nobody cannot run $SIGNUP_BIN)"
fi

echo "config: $failures failed"
[ "$failures" -eq 0 ]
