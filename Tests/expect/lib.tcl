# Shared by the expect scripts: a scratch folder, a pinned environment, and steps that fail
# (exit 1) on timeout, on an early end, or when a typed password shows up in the output.
# Sourced, not run: scripts/test runs only *.exp files.

set timeout 10
if {![info exists env(SIGNUP_BIN)] || ![file executable $env(SIGNUP_BIN)]} {
    puts stderr "SIGNUP_BIN must name the built signup binary"
    exit 2
}
set bin $env(SIGNUP_BIN)
set dir [exec mktemp -d /tmp/signup-expect-XXXXXX]
set db "$dir/accounts.sqlite"
array set env {TERM dumb NO_COLOR 1 LANG C.UTF-8 LC_ALL C.UTF-8 COLUMNS 80 LINES 24 SWIFT_BACKTRACE enable=no}
set env(HOME) $dir
# Texts that must never appear in anything read from the terminal.
set secrets {}
# Everything read so far.
set seen ""
log_user 0

proc cleanup {} {
    global dir
    catch {exec rm -rf $dir}
}

proc fail {message} {
    global seen
    puts stderr "FAIL: $message"
    puts stderr "--- output so far:\n$seen"
    catch {close}
    cleanup
    exit 1
}

proc check_secrets {} {
    global seen secrets
    foreach secret $secrets {
        if {[string first $secret $seen] >= 0} { fail "a password appeared in the output" }
    }
}

# Waits for the exact text `prompt` (no glob, no regex), then types `keys`.
proc step {prompt keys} {
    global seen
    expect {
        -ex $prompt { append seen $expect_out(buffer) }
        timeout { fail "timed out waiting for \"$prompt\"" }
        eof { append seen $expect_out(buffer); fail "signup ended before \"$prompt\"" }
    }
    check_secrets
    send -- $keys
}

# Reads to the end and returns signup's exit status (or 128+N if a signal N killed it).
proc finish {} {
    global seen
    expect {
        eof { append seen $expect_out(buffer) }
        timeout { fail "signup did not end" }
    }
    check_secrets
    set result [wait]
    if {[lindex $result 2] != 0} { fail "could not get the exit status: $result" }
    if {[llength $result] > 4 && [lindex $result 4] eq "CHILDKILLED"} {
        return [expr {128 + [exec kill -l [lindex $result 5]]}]
    }
    return [lindex $result 3]
}
