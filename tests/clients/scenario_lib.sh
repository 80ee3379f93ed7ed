# Shared by the client scenarios (sourced, not run): the client venv, a real
# placement-api on a free loopback port with a throw-away SQLite database and
# noauth2, the `osc` runner, the output checks, waiting for a condition and
# Placement API calls. Any failure stops the scenario with a message and the
# tail of the server's log.
#
# OSC_VENV        the venv holding `openstack` and its plugins (default: the
#                 one tests/clients/clientenv.py keeps under ~/.cache, built
#                 on first use)
# PLACEMENT_VENV  the venv with our placement-api (default <repo>/.venv)
# osc_args        (array, set by the scenario) options added to every call
# server_args     (array, optional, set by the scenario) options added to
#                 placement-api's (e.g. --applier)

# OS_* variables would reach both the client (clouds, auth) and the server
# (OS_<GROUP>__<OPTION> overrides): the scenario sets everything itself.
while read -r name; do unset "$name"; done < <(compgen -e | grep '^OS_' || true)

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
placement_venv="${PLACEMENT_VENV:-$repo/.venv}"
osc_venv="${OSC_VENV:-}"
if [ -z "$osc_venv" ]; then
    osc_venv="$(python3 "$repo/tests/clients/clientenv.py")"
fi

work="$(mktemp -d /tmp/placement-clients.XXXXXX)"
server_pid=""

cleanup() {
    if [ -n "$server_pid" ]; then
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

fail() {
    echo "FAIL: $*" >&2
    echo "---- server log (last 40 lines) ----" >&2
    tail -n 40 "$work/server.log" >&2 || true
    exit 1
}

# start_server: what `python3 dev.py serve` runs, on a free port and a
# database of its own; sets $endpoint once the server answers.
start_server() {
    local port
    port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    endpoint="http://127.0.0.1:$port"
    cat > "$work/placement.conf" <<EOF
[api]
auth_strategy = noauth2

[placement_database]
connection = sqlite:///$work/placement.sqlite
sync_on_startup = true
EOF
    echo "== starting placement-api on $endpoint"
    "$placement_venv/bin/placement-api" --port "$port" --config-file "$work/placement.conf" \
        ${server_args[@]+"${server_args[@]}"} > "$work/server.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 1 100); do
        if curl -sf -o /dev/null "$endpoint/"; then
            return 0
        fi
        kill -0 "$server_pid" 2>/dev/null || fail "placement-api exited before answering"
        sleep 0.2
    done
    fail "placement-api did not answer on $endpoint"
}

# osc <args...>: the unchanged client as an admin of the noauth2 server, at
# $endpoint followed by $osc_path (a scenario may set it: /infra-optim is
# Watcher's endpoint on Placement's port).
osc() {
    local out
    if ! out="$("$osc_venv/bin/openstack" --os-auth-type admin_token --os-endpoint "$endpoint${osc_path:-}" \
            --os-token admin "${osc_args[@]}" "$@" 2>&1)"; then
        fail "openstack $*: $out"
    fi
    printf '%s\n' "$out"
}

# osc_fails <description> <expected message part> <args...>: the client must
# fail and print that message.
osc_fails() {
    local what="$1" wanted="$2" out
    shift 2
    if out="$("$osc_venv/bin/openstack" --os-auth-type admin_token --os-endpoint "$endpoint${osc_path:-}" \
            --os-token admin "${osc_args[@]}" "$@" 2>&1)"; then
        fail "$what: openstack $* succeeded: $out"
    fi
    case "$out" in
        *"$wanted"*) echo "ok: $what" ;;
        *) fail "$what: expected [$wanted] in [$out]" ;;
    esac
}

# expect <description> <expected> <args...>: run the client, compare its
# output. (An assignment, not an argument, so a failing client stops us.)
expect() {
    local what="$1" wanted="$2" got
    shift 2
    got="$(osc "$@")"
    [ "$got" = "$wanted" ] || fail "$what: expected [$wanted], got [$got]"
    echo "ok: $what"
}

# expect_sorted: the same, comparing the output lines as a sorted set
expect_sorted() {
    local what="$1" wanted="$2" got
    shift 2
    got="$(osc "$@")"
    got="$(printf '%s\n' "$got" | sed '/^$/d' | sort | paste -sd ' ')"
    [ "$got" = "$wanted" ] || fail "$what: expected [$wanted], got [$got]"
    echo "ok: $what"
}

# expect_line <description> <line> <yes|no> <args...>: is <line> in the output?
expect_line() {
    local what="$1" line="$2" wanted="$3" got found=no
    shift 3
    got="$(osc "$@")"
    if printf '%s\n' "$got" | grep -qx -- "$line"; then
        found=yes
    fi
    [ "$found" = "$wanted" ] || fail "$what: [$line] listed: $found, expected $wanted"
    echo "ok: $what"
}

# check <description> <json> <python expression over d>: the expression holds.
check() {
    local what="$1" json="$2" expression="$3"
    python3 -c 'import datetime, json, sys; d = json.loads(sys.argv[1]); sys.exit(0 if eval("(" + sys.argv[2] + ")") else 1)' \
        "$json" "$expression" || fail "$what: not ($expression) in $json"
    echo "ok: $what"
}

# pick <json> <python expression over d>: print the expression's value.
pick() {
    python3 -c 'import json, sys; d = json.loads(sys.argv[1]); print(eval(sys.argv[2]))' "$1" "$2"
}

# wait_for <description> <seconds> <command...>: run the command every half
# second until it succeeds, for at most that long.
wait_for() {
    local what="$1" seconds="$2" deadline=$((SECONDS + $2))
    shift 2
    while [ "$SECONDS" -lt "$deadline" ]; do
        if "$@"; then
            echo "ok: $what"
            return 0
        fi
        sleep 0.5
    done
    fail "$what: not within $seconds s"
}

# plan_state_is <plan> <state>: `openstack optimize actionplan show` gives the
# action plan that state (for wait_for).
plan_state_is() {
    [ "$(osc optimize actionplan show "$1" -f value -c State)" = "$2" ]
}

# placement <method> <path> [body]: a Placement API call as admin at 1.39, its
# JSON answer printed; any HTTP error stops the scenario.
placement() {
    local out
    out="$(curl -sS --fail-with-body -X "$1" "$endpoint$2" -H "X-Auth-Token: admin" \
        -H "OpenStack-API-Version: placement 1.39" -H "Content-Type: application/json" \
        ${3:+--data "$3"})" || fail "placement $1 $2: $out"
    printf '%s\n' "$out"
}

# add_nodes <prefix>: three resource providers <prefix>-1 to <prefix>-3, each
# with 8 VCPU, 8192 MEMORY_MB and 100 DISK_GB; their uuids in node_uuid[1..3].
declare -A node_uuid
add_nodes() {
    local n
    for n in 1 2 3; do
        node_uuid[$n]="$(pick "$(placement POST /resource_providers '{"name": "'"$1-$n"'"}')" 'd["uuid"]')"
        placement PUT "/resource_providers/${node_uuid[$n]}/inventories" '{"resource_provider_generation": 0,
            "inventories": {"VCPU": {"total": 8}, "MEMORY_MB": {"total": 8192}, "DISK_GB": {"total": 100}}}' > /dev/null
    done
}
