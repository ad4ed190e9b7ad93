#!/usr/bin/env bash
# The tests' real MTA (scripts/lib/mta.sh): Exim in a temporary folder. A UTF-8 message with the
# headers signup's mail has (RFC 2047 subject, MIME, 8bit body) goes through the sendmail command
# as root and as nobody, to an ASCII and a UTF-8 address, and arrives byte for byte; what Exim
# does with a message it refuses (a domain in .invalid, no recipient, a malformed address): a
# non-zero exit and a bounce to the sender; only loopback is listened on; after mta_stop no
# process is left and /etc/exim4 is as it was.
# usage: mta.sh   (as root; scripts/test gives it SIGNUP_BIN, which it does not need)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
if [ "$(id -u)" -ne 0 ]; then
    echo "mta: skipped (needs root, for Exim's daemon and a sender as nobody)"; exit 0
fi
. "$root/scripts/lib/setup.sh"
. "$root/scripts/lib/mta.sh"
tmp="$(mktemp -d /tmp/signup-mta.XXXXXX)"
chmod 0755 "$tmp"  # the folder of Exim's, reachable by nobody (sender and delivery user)
dir="$tmp/mta"
trap 'mta_stop "$dir"; rm -rf "$tmp"' EXIT
passed=0 failed=0
check() {  # check DESCRIPTION COMMAND...
    if "${@:2}"; then passed=$((passed + 1)); echo "mta: PASS $1"
    else failed=$((failed + 1)); echo "mta: FAIL $1"; fi
}
# The machine's own Exim and configuration, to compare after mta_stop.
etc_state() { find /etc/exim4 -type f -exec sha256sum {} + 2>/dev/null | sort; }
system_daemon() { [ -s /run/exim4/exim.pid ] && kill -0 "$(cat /run/exim4/exim.pid)" 2>/dev/null; }
mta_install || { echo "mta: FAIL Exim could not be installed"; exit 1; }
etc_before="$(etc_state)"
system_before=no; system_daemon && system_before=yes

start=$(date +%s%N)
mta_start "$dir"
started=$(date +%s%N)
sendmail="$(mta_sendmail_command "$dir")"
as_nobody() { setpriv --reuid nobody --regid nogroup --clear-groups "$@"; }

# The message as signup writes it: CRLF-free lines, a UTF-8 body sent as 8bit.
message() {  # message TO SUBJECT-WORD
    printf 'From: signup <signup@example.com>\n'
    printf 'To: %s\n' "$1"
    printf 'Subject: =?UTF-8?B?%s?=\n' "$(printf 'Ihr Bestätigungscode: %s' "$2" | base64 -w 0)"
    printf 'Date: Fri, 27 Nov 2026 16:00:00 +0000\n'
    printf 'Message-ID: <%s.%s@example.com>\n' "$2" "$$"
    printf 'MIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\nContent-Transfer-Encoding: 8bit\n\n'
    body "$2"
}
body() { printf 'Grüße, José! Ihr Code: %s\nΟδυσσέας — 日本語 — 🙂\n\ttab and trailing space \n.\n..leading dots stay\n' "$1"; }
after_headers() { awk 'found { print; next } /^$/ { found = 1 }'; }
header() { sed -n "/^\$/q; s/^$1: //p"; }

# One message as root, one as nobody, to an ASCII and a UTF-8 address.
sent=$(date +%s%N)
status=0; message alice@example.com 123456 | "$sendmail" -t -i || status=$?
check "root's message is accepted (exit $status)" test "$status" -eq 0
status=0; message 'jürgen@bücher.example' 654321 | as_nobody "$sendmail" -t -i || status=$?
check "nobody's message to a UTF-8 address is accepted (exit $status)" test "$status" -eq 0

if mta_wait_message "$dir" alice@example.com >"$tmp/root.eml"; then
    delivered=$(date +%s%N)
    check "root's message arrives" true
    check "its body arrives byte for byte" cmp -s <(after_headers <"$tmp/root.eml") <(body 123456)
    check "its headers arrive as sent (From, To, Subject, Date, Message-ID, MIME)" \
        cmp -s <(message alice@example.com 123456 | sed -n '/^$/q; p') \
                <(grep -E '^(From|To|Subject|Date|Message-ID|MIME-Version|Content-Type|Content-Transfer-Encoding): ' "$tmp/root.eml")
    check "Exim adds no Sender: and no second Message-ID" test "$(grep -ciE '^(sender|message-id):' "$tmp/root.eml")" -eq 1
else
    check "root's message arrives" false
fi
if mta_wait_message "$dir" 'Jürgen@Bücher.example' >"$tmp/nobody.eml"; then
    check "nobody's message arrives, to jürgen@bücher.example" test "$(header Envelope-to <"$tmp/nobody.eml")" = 'jürgen@bücher.example'
    check "its body arrives byte for byte" cmp -s <(after_headers <"$tmp/nobody.eml") <(body 654321)
    check "it was submitted by nobody" grep -q '^Received: from nobody by localhost with local' "$tmp/nobody.eml"
else
    check "nobody's message arrives, to jürgen@bücher.example" false
fi
# A message waited for is removed: a second wait for alice@example.com times out, and says so.
status=0; mta_wait_message "$dir" alice@example.com 1 >/dev/null 2>"$tmp/timeout.err" || status=$?
check "a message waited for is removed: the next wait for its address times out (exit $status)" test "$status" -eq 1
check "a wait that times out says so" grep -qx "mta: no message for alice@example.com was delivered within 1 s .*" "$tmp/timeout.err"

# What a sender is told of a message Exim refuses: a non-zero exit, and a bounce to the sender
# (root@localhost, nobody@localhost) saying why; nothing reaches the recipient.
refused() {  # refused DESCRIPTION SENDER BOUNCE-SUBJECT REASON (the message in $tmp/refused.eml)
    local status=0
    if [ "$2" = nobody@localhost ]; then as_nobody "$sendmail" -t -i <"$tmp/refused.eml" 2>/dev/null || status=$?
    else "$sendmail" -t -i <"$tmp/refused.eml" 2>/dev/null || status=$?; fi
    check "$1: exit $status, not 0" test "$status" -ne 0
    if mta_wait_message "$dir" "$2" >"$tmp/bounce.eml"; then
        check "$1: a bounce to $2 ($3: $4)" \
            bash -c '[ "$(sed -n "/^\$/q; s/^Subject: //p" "$1")" = "$2" ] && grep -qF -- "$3" "$1"' _ "$tmp/bounce.eml" "$3" "$4"
    else
        check "$1: a bounce to $2" false
    fi
}
message someone@example.invalid 111111 >"$tmp/refused.eml"
refused "a domain in .invalid, from nobody" nobody@localhost \
    "Mail failure - rejected by local scanning code" "the domain .invalid never exists (RFC 2606)"
printf 'From: signup@example.com\nSubject: no recipient\n\nbody\n' >"$tmp/refused.eml"
refused "no recipient" root@localhost "Mail failure - no recipient addresses" "contained no recipient addresses"
printf 'From: signup@example.com\nTo: <broken@\nSubject: broken\n\nbody\n' >"$tmp/refused.eml"
refused "a malformed address" root@localhost "Mail failure - malformed recipient address" "<broken@: domain missing or malformed"
check "nothing was delivered to the refused recipient" bash -c '! grep -rlq "^Envelope-to: someone@example.invalid" "$1/mailbox/new"' _ "$dir"

# Loopback only: every socket Exim's daemon listens on is 127.0.0.1's.
listening="$(ss -Hltnp | grep "pid=$(cat "$dir/daemon.pid")," | awk '{print $4}')"
check "the daemon listens on 127.0.0.1 only ($listening)" bash -c '[ -n "$1" ] && ! grep -qv "^127\.0\.0\.1:" <<<"$1"' _ "$listening"

pgid="$(cat "$dir/daemon.pid")"
mta_stop "$dir"
check "after mta_stop no process of Exim's is left" \
    bash -c '! ps -eo pgid=,args= | grep -E "^ *$1 |$2/exim\.conf" | grep -v grep' _ "$pgid" "$dir"
check "/etc/exim4 is as it was" test "$(etc_state)" = "$etc_before"
system_after=no; system_daemon && system_after=yes
check "the machine's own Exim is as it was (running: $system_after)" test "$system_after" = "$system_before"

echo "mta: started in $(( (started - start) / 1000000 )) ms; the first message delivered $(( (${delivered:-$sent} - sent) / 1000000 )) ms after it was sent"
echo "mta: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
