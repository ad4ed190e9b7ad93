# A throwaway Dovecot for the integration tests: no protocols, no system service, its auth
# worker as the user `dovecot`, its passdb the SQL file given. Sourced, not run.
#   dovecot_start DIR SQL-CONF   writes DIR/dovecot.conf (state, socket and log in DIR) and starts it
#   dovecot_login DIR EMAIL PASSWORD   prints accepted or refused (`doveadm auth test`)
#   dovecot_stop DIR
dovecot_start() {
    cat >"$1/dovecot.conf" <<CONF
base_dir = $1/run
state_dir = $1/state
log_path = $1/dovecot.log
protocols =
ssl = no
auth_mechanisms = plain
auth_failure_delay = 0
auth_username_chars =
service auth-worker {
  user = dovecot
}
passdb {
  driver = sql
  args = $2
}
userdb {
  driver = static
  args = uid=nobody gid=nogroup home=$1/home
}
CONF
    dovecot -c "$1/dovecot.conf"
}
# Without the auth penalty (no-penalty): after a refusal Dovecot otherwise holds the next login
# 2 s or more, which a test that checks a refusal and then an acceptance would wait through.
dovecot_login() {
    doveadm -c "$1/dovecot.conf" auth test -x no-penalty "$2" "$3" >/dev/null 2>&1 && echo accepted || echo refused
}
dovecot_stop() {
    [ -f "$1/run/master.pid" ] && doveadm -c "$1/dovecot.conf" stop >/dev/null 2>&1 || true
}
