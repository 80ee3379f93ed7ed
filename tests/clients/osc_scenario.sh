#!/usr/bin/env bash
# The openstack client with the osc-placement plugin, unchanged, against our
# server: providers, inventories, provider traits and aggregates, resource
# classes and traits, at microversion 1.39. Any failed command or unexpected
# answer stops the scenario with a message and the server's log.
#
#   tests/clients/osc_scenario.sh
#
# OSC_VENV     where the client lives (default /tmp/placement-osc-venv; made
#              with pip on first use, reused afterwards)
# PLACEMENT_VENV  the venv with our placement-api (default <repo>/.venv)
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
osc_venv="${OSC_VENV:-/tmp/placement-osc-venv}"
placement_venv="${PLACEMENT_VENV:-$repo/.venv}"

if [ ! -x "$osc_venv/bin/openstack" ]; then
    echo "== installing python-openstackclient and osc-placement into $osc_venv"
    python3 -m venv "$osc_venv"
    "$osc_venv/bin/pip" install --quiet python-openstackclient osc-placement
fi

work="$(mktemp -d /tmp/placement-osc.XXXXXX)"
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
    > "$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 100); do
    if curl -sf -o /dev/null "$endpoint/"; then
        break
    fi
    kill -0 "$server_pid" 2>/dev/null || fail "placement-api exited before answering"
    sleep 0.2
done
curl -sf -o /dev/null "$endpoint/" || fail "placement-api did not answer on $endpoint"

osc() {
    local out
    if ! out="$("$osc_venv/bin/openstack" --os-auth-type admin_token --os-endpoint "$endpoint" \
            --os-token admin --os-placement-api-version 1.39 "$@" 2>&1)"; then
        fail "openstack $*: $out"
    fi
    printf '%s\n' "$out"
}

# expect <description> <expected> <command...>: run the client, compare its
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

# expect_line <description> <line> <yes|no> <command...>: is <line> in the output?
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

# --- resource classes ------------------------------------------------------------
osc resource class create CUSTOM_OSC_GOLD > /dev/null
expect "resource class show" CUSTOM_OSC_GOLD resource class show CUSTOM_OSC_GOLD -f value -c name
expect_line "resource class list has the new class" CUSTOM_OSC_GOLD yes \
    resource class list -f value -c name
expect_line "resource class list has the standard classes" VCPU yes \
    resource class list -f value -c name

# --- traits ------------------------------------------------------------------------
osc trait create CUSTOM_OSC_FAST > /dev/null
expect "trait show" CUSTOM_OSC_FAST trait show CUSTOM_OSC_FAST -f value -c name
expect "trait list filtered by prefix" CUSTOM_OSC_FAST \
    trait list --name startswith:CUSTOM_ -f value -c name
expect_line "trait list has the standard traits" HW_CPU_X86_AVX yes trait list -f value -c name

# --- providers -----------------------------------------------------------------------
rp="$(osc resource provider create osc-compute-1 -f value -c uuid)"
expect "resource provider show" osc-compute-1 resource provider show "$rp" -f value -c name
expect "resource provider list" "$rp" resource provider list -f value -c uuid
osc resource provider set "$rp" --name osc-compute-renamed > /dev/null
expect "resource provider set renamed it" osc-compute-renamed \
    resource provider show "$rp" -f value -c name

# --- inventories -----------------------------------------------------------------------
osc resource provider inventory set "$rp" --resource VCPU=8 --resource MEMORY_MB=4096 \
    --resource CUSTOM_OSC_GOLD=2 --resource VCPU:allocation_ratio=4.0 > /dev/null
expect_sorted "resource provider inventory list" "CUSTOM_OSC_GOLD MEMORY_MB VCPU" \
    resource provider inventory list "$rp" -f value -c resource_class
expect "resource provider inventory show" 8 \
    resource provider inventory show "$rp" VCPU -f value -c total
expect "inventory allocation ratio" 4.0 \
    resource provider inventory show "$rp" VCPU -f value -c allocation_ratio
osc resource provider inventory delete "$rp" --resource-class MEMORY_MB > /dev/null
expect_sorted "resource provider inventory delete" "CUSTOM_OSC_GOLD VCPU" \
    resource provider inventory list "$rp" -f value -c resource_class

# --- provider traits ----------------------------------------------------------------------
osc resource provider trait set "$rp" --trait HW_CPU_X86_AVX --trait CUSTOM_OSC_FAST > /dev/null
expect_sorted "resource provider trait list" "CUSTOM_OSC_FAST HW_CPU_X86_AVX" \
    resource provider trait list "$rp" -f value -c name
expect_sorted "trait list of associated traits" "CUSTOM_OSC_FAST HW_CPU_X86_AVX" \
    trait list --associated -f value -c name
osc resource provider trait delete "$rp" > /dev/null
expect "resource provider trait delete" "" resource provider trait list "$rp" -f value -c name

# --- provider aggregates -------------------------------------------------------------------
agg1="$(python3 -c 'import uuid; print(uuid.uuid4())')"
agg2="$(python3 -c 'import uuid; print(uuid.uuid4())')"
generation="$(osc resource provider show "$rp" -f value -c generation)"
osc resource provider aggregate set "$rp" --aggregate "$agg1" --aggregate "$agg2" \
    --generation "$generation" > /dev/null
expect_sorted "resource provider aggregate list" "$(printf '%s\n' "$agg1" "$agg2" | sort | paste -sd ' ')" \
    resource provider aggregate list "$rp" -f value -c uuid

# --- cleaning up through the client ----------------------------------------------------------
osc resource provider inventory delete "$rp" --resource-class CUSTOM_OSC_GOLD > /dev/null
osc resource class delete CUSTOM_OSC_GOLD > /dev/null
expect_line "resource class delete" CUSTOM_OSC_GOLD no resource class list -f value -c name
osc trait delete CUSTOM_OSC_FAST > /dev/null
expect "trait delete" "" trait list --name startswith:CUSTOM_ -f value -c name
osc resource provider delete "$rp" > /dev/null
expect "resource provider delete" "" resource provider list -f value -c uuid

echo "osc scenario passed"
