#!/usr/bin/env bash
# The openstack client with the osc-placement plugin, unchanged, against our
# server: providers, inventories, provider traits and aggregates, resource
# classes and traits, at microversion 1.39. Any failed command or unexpected
# answer stops the scenario with a message and the server's log.
#
#   tests/clients/osc_scenario.sh
#
# Environment: see scenario_lib.sh (OSC_VENV, PLACEMENT_VENV).
set -euo pipefail

# shellcheck source=tests/clients/scenario_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/scenario_lib.sh"
osc_args=(--os-placement-api-version 1.39)
start_server

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
