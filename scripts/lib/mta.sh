# A real mail transfer agent for the tests: Debian's Exim (exim4-daemon-light), with its
# configuration, queue, logs and mailbox in one folder, relaying nothing: it delivers the mail for
# every address, of any domain, into one Maildir in that folder, which the test reads. Its daemon
# only runs the queue and listens on a loopback port. Sourced, not run; as root.
#
#   . scripts/lib/mta.sh
#   mta_start "$dir"                          # installs exim4-daemon-light when missing
#   command="$(mta_sendmail_command "$dir")"  # signup's mail.command: "$command -t -i"
#   mta_wait_message "$dir" alice@example.com >message   # the raw message, as delivered
#   mta_stop "$dir"
#
# Exim, not Postfix: Exim takes a whole configuration file on its command line (-C), and lets any
# user submit with it, so the sendmail command works for root and for an unprivileged account
# without a line of the machine's /etc. (Postfix's sendmail accepts another configuration
# folder from an unprivileged user only once /etc/postfix/main.cf lists it, a change of the
# machine's configuration.) Running it neither reads nor writes /etc/exim4 (which installing the
# package fills); Exim's binary only reads its /etc/exim4/trusted_configs, which does not list
# this configuration, so Exim gives up its root privilege for a submission by anyone but root:
# that submission writes the queue as its own user, and the daemon, run by root, delivers it.

. "$(dirname "${BASH_SOURCE[0]}")/pg.sh"  # pg_free_port

MTA_EXIM=/usr/sbin/exim4

# Installs Exim when missing, through ensure_debian_packages, without ever starting the
# machine's own Exim: the install's service start is refused (policy-rc.d, only when the
# machine has none), any daemon the package started anyway is stopped and its service is disabled.
# An installed other MTA (Postfix, …) is never replaced: apt would remove it.
mta_install() {
    local package
    for package in exim4-daemon-light exim4-daemon-heavy; do  # either daemon has /usr/sbin/exim4
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' && return 0
    done
    [ "$(id -u)" -eq 0 ] || { echo "mta: installing Exim (exim4-daemon-light) needs root" >&2; return 1; }
    local other
    other="$(dpkg-query -W -f='${db:Status-Abbrev} ${Package} ${Provides}\n' 2>/dev/null \
        | awk '$1 == "ii" && /mail-transport-agent/ && $2 !~ /^exim4/ { print $2 }')"
    if [ -n "$other" ]; then
        echo "mta: this machine's MTA is $other; installing exim4-daemon-light would remove it (install exim4-daemon-light yourself to run these tests)" >&2
        return 1
    fi
    command -v ensure_debian_packages >/dev/null 2>&1 || . "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
    # Local delivery only, should the machine's own Exim ever be started; no question asked.
    echo 'exim4-config exim4/dc_eximconfig_configtype select local delivery only; not on a network' \
        | debconf-set-selections
    local policy=/usr/sbin/policy-rc.d made_policy=""
    if [ ! -e "$policy" ]; then
        printf '#!/bin/sh\n# made by signup'"'"'s scripts/lib/mta.sh while it installs Exim; removed after\nexit 101\n' >"$policy"
        chmod 0755 "$policy"; made_policy=1
    fi
    local status=0
    ensure_debian_packages exim4-daemon-light || status=$?
    [ -z "$made_policy" ] || rm -f "$policy"
    [ "$status" -eq 0 ] || return "$status"
    # The machine's own daemon: not running, and not started at the next boot.
    if [ -s /run/exim4/exim.pid ] && kill -0 "$(cat /run/exim4/exim.pid)" 2>/dev/null; then
        kill "$(cat /run/exim4/exim.pid)" 2>/dev/null || true
    fi
    if [ -d /run/systemd/system ]; then
        systemctl disable --now exim4.service >/dev/null 2>&1 || true
    else
        update-rc.d exim4 disable >/dev/null 2>&1 || true
    fi
}

# mta_start DIR: Exim's configuration (DIR/exim.conf), queue (DIR/spool), logs (DIR/log/mainlog,
# paniclog, rejectlog) and Maildir (DIR/mailbox/new); its daemon runs the queue every second and
# listens on 127.0.0.1 only. DIR is made when missing (it must be reachable by every user who sends).
mta_start() {
    local dir="$1"
    [ "$(id -u)" -eq 0 ] || { echo "mta: mta_start needs root" >&2; return 1; }
    mta_install || return 1
    mkdir -p "$dir/spool/input" "$dir/spool/msglog" "$dir/spool/db" "$dir/log" "$dir/mailbox"
    chmod 0755 "$dir"
    # Any user may submit: the queue, its message logs and the logs are written by the
    # submitting user's Exim. Not sticky: in a sticky folder the kernel refuses to open another
    # user's existing file for writing (fs.protected_regular), and Exim opens its logs so.
    chmod 0777 "$dir/spool" "$dir/spool/input" "$dir/spool/msglog" "$dir/log"
    chmod 0700 "$dir/spool/db"
    local log
    for log in mainlog paniclog rejectlog; do
        touch "$dir/log/$log"; chmod 0666 "$dir/log/$log"
    done
    # Deliveries run as nobody (Exim never delivers as root).
    chown nobody:nogroup "$dir/mailbox"
    # Exim's queue files belong to exim_user: the submitting user's own, given on the command
    # line by the sendmail script, so that Exim without root privilege can own them; root's
    # (0) for the daemon and for root's submissions.
    cat >"$dir/exim.conf" <<CONFIG
.ifndef SUBMITTER_UID
SUBMITTER_UID = 0
.endif
.ifndef SUBMITTER_GID
SUBMITTER_GID = 0
.endif
exim_user = SUBMITTER_UID
exim_group = SUBMITTER_GID
primary_hostname = localhost
qualify_domain = localhost
spool_directory = $dir/spool
log_file_path = $dir/log/%slog
pid_file_path = $dir/exim.pid
local_interfaces = <; 127.0.0.1
daemon_smtp_ports = $(pg_free_port)
tls_advertise_hosts =
host_lookup =
rfc1413_hosts =
keep_environment =
# Every message waits for the daemon's next queue run (within a second): a submitting user
# without root privilege could not deliver as nobody.
queue_only = true
# The From: signup writes is kept as it is, with no Sender: added.
local_from_check = false
acl_not_smtp = acl_not_smtp
acl_smtp_rcpt = acl_smtp_rcpt

begin acl
# A domain that never exists (RFC 2606): a refused message, to test what a sender is told.
acl_not_smtp:
  deny message = the domain .invalid never exists (RFC 2606)
       condition = \${if forany{<, \$recipients}{match_domain{\${domain:\$item}}{invalid : *.invalid}}}
  accept
acl_smtp_rcpt:
  deny message = the domain .invalid never exists (RFC 2606)
       domains = invalid : *.invalid
  accept hosts = 127.0.0.1
  deny

begin routers
everyone:
  driver = accept
  transport = mailbox

begin transports
# One Maildir for all: Envelope-to names the address each copy was delivered to.
mailbox:
  driver = appendfile
  directory = $dir/mailbox
  maildir_format = true
  create_directory = true
  directory_mode = 0755
  mode = 0644
  envelope_to_add = true
  return_path_add = true
  delivery_date_add = true
  user = nobody
  group = nogroup

begin retry
* * F,1h,1m
CONFIG
    chmod 0644 "$dir/exim.conf"
    # Deliveries, and submissions by other users, need the way to DIR open to all.
    if ! runuser -u nobody -- test -r "$dir/exim.conf"; then
        echo "mta: $dir is out of other users' reach (a folder above it is not searchable by all)" >&2
        return 1
    fi
    # The sendmail command: Exim with this configuration, its queue files owned by the caller.
    # Exim without root privilege writes its log lines (the message's arrival, "exim user lost
    # privilege for using -C option") to standard error, not to its log: they go to
    # DIR/log/submitlog, where a machine's Exim puts them in its log. Errors are mailed to the
    # sender, as by root's Exim, and the exit status says them.
    touch "$dir/log/submitlog"; chmod 0666 "$dir/log/submitlog"
    cat >"$dir/sendmail" <<SCRIPT
#!/bin/sh
[ "\$(id -u)" -eq 0 ] || exec 2>>$dir/log/submitlog
exec $MTA_EXIM -C $dir/exim.conf -DSUBMITTER_UID="\$(id -u)" -DSUBMITTER_GID="\$(id -g)" "\$@"
SCRIPT
    chmod 0755 "$dir/sendmail"
    # The daemon in the foreground (-bdf), leading a process group of its own: mta_stop ends the
    # group, and this shell reaps the daemon.
    setsid "$MTA_EXIM" -C "$dir/exim.conf" -bdf -q1s </dev/null >>"$dir/log/daemon.out" 2>&1 &
    echo $! >"$dir/daemon.pid"
    local _
    for _ in $(seq 100); do
        [ -s "$dir/exim.pid" ] && grep -q 'daemon started' "$dir/log/mainlog" && return 0
        kill -0 "$(cat "$dir/daemon.pid")" 2>/dev/null || break
        sleep 0.05
    done
    echo "mta: Exim's daemon did not start:" >&2
    cat "$dir/log/daemon.out" "$dir/log/paniclog" >&2
    return 1
}

# mta_sendmail_command DIR: a sendmail-compatible command, one absolute path: it reads a message
# on standard input, takes sendmail's options (-t -i, as signup's default /usr/sbin/sendmail -t -i),
# exits 0 once Exim queued the message and non-zero when Exim refused it (no recipient, a malformed
# address, a domain in .invalid), sending the sender a bounce too. For root and for any user.
mta_sendmail_command() {
    echo "$1/sendmail"
}

# mta_wait_message DIR RECIPIENT [TIMEOUT_SECONDS]: waits (20 s unless told) for the oldest
# message delivered to RECIPIENT (its domain and ASCII letters in any case), prints it whole as
# delivered (Exim's Return-path, Envelope-to, Delivery-date and Received first) and removes it.
mta_wait_message() {
    local dir="$1" timeout="${3:-20}" want file
    want="$(printf '%s' "$2" | LC_ALL=C tr 'A-Z' 'a-z')"
    local deadline=$((SECONDS + timeout))
    while :; do
        while read -r file; do
            [ -n "$file" ] || continue
            if [ "$(LC_ALL=C sed -n '/^\r\{0,1\}$/q; s/^Envelope-to: //p' "$file" | LC_ALL=C tr 'A-Z' 'a-z')" = "$want" ]; then
                cat "$file" && rm -f "$file"
                return
            fi
        done < <(find "$dir/mailbox/new" -type f -printf '%T@ %p\n' 2>/dev/null | sort -n | cut -d ' ' -f 2-)
        if [ "$SECONDS" -ge "$deadline" ]; then
            echo "mta: no message for $2 was delivered within $timeout s (Exim's log: $dir/log/mainlog)" >&2
            return 1
        fi
        sleep 0.1
    done
}

# mta_stop DIR: ends the daemon and every process of its group (queue runs, deliveries), waits
# until none is left; no error when it is not running.
mta_stop() {
    local dir="$1" pid _
    [ -s "$dir/daemon.pid" ] || return 0
    pid="$(cat "$dir/daemon.pid")"
    kill -TERM -- "-$pid" 2>/dev/null || true
    for _ in $(seq 100); do
        pgrep -g "$pid" >/dev/null 2>&1 || break
        sleep 0.05
    done
    kill -KILL -- "-$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    rm -f "$dir/daemon.pid"
}
