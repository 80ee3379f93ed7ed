#!/usr/bin/env bash
# python-watcherclient (`openstack optimize ...`), unchanged, against our
# server's /v1 API: the built-in goals and strategies, an actuator audit whose
# actions come from a parameters file, the action plan it leaves (its actions
# and their parents as the weight planner set them), skipping an action,
# starting, cancelling and deleting the plan, deleting the audit. Checks what
# the client prints, in table form where the client formats fields itself and
# as JSON where a check looks inside. Any failed command or unexpected answer
# stops the scenario with a message and the server's log.
#
#   tests/clients/watcher_scenario.sh
#
# Environment: see scenario_lib.sh (OSC_VENV, PLACEMENT_VENV).
set -euo pipefail

# shellcheck source=tests/clients/scenario_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/scenario_lib.sh"
osc_args=()
start_server

# check <description> <json> <python expression over d>: the expression holds.
check() {
    local what="$1" json="$2" expression="$3"
    python3 -c 'import json, sys; d = json.loads(sys.argv[1]); sys.exit(0 if eval("(" + sys.argv[2] + ")") else 1)' \
        "$json" "$expression" || fail "$what: not ($expression) in $json"
    echo "ok: $what"
}

# pick <json> <python expression over d>: print the expression's value.
pick() {
    python3 -c 'import json, sys; d = json.loads(sys.argv[1]); print(eval(sys.argv[2]))' "$1" "$2"
}

# table_row <output> <cell>: the table row holding that exact cell.
table_row() {
    printf '%s\n' "$1" | grep -E "\| $2 +\|" || true
}

# --- the built-in catalog ----------------------------------------------------------
# Table output: the client formats each goal's efficacy specification itself.
goals="$(osc optimize goal list)"
row="$(table_row "$goals" unclassified)"
case "$row" in *"| Unclassified "*) echo "ok: goal list" ;; *) fail "goal list: $goals" ;; esac
expect "strategy list --goal" actuator optimize strategy list --goal unclassified -f value -c Name
spec="$(osc optimize strategy show actuator -f json)"
check "strategy show" "$spec" \
    'd["Goal"] == "unclassified" and "actions" in json.loads(d["Parameters spec"])'

# --- an audit with the actuator strategy, actions from a parameters file -------------
# Given out of order: the weight planner puts the service change (weight 50)
# first, the two migrations (30, two at a time) next, the power-off (9) last.
vm1=6d1ad0f4-63f2-4b8e-9f36-4c7b8e3e7a11
vm2=0b0c7f5e-2a4d-4a5e-8d0b-2f6c1e9d4b22
cat > "$work/actions.json" <<EOF
[{"action_type": "migrate", "resource_id": "$vm1",
  "input_parameters": {"migration_type": "live", "source_node": "compute-1"}},
 {"action_type": "migrate", "resource_id": "$vm2",
  "input_parameters": {"migration_type": "live", "source_node": "compute-1"}},
 {"action_type": "change_node_power_state", "resource_id": "compute-1",
  "input_parameters": {"state": "off"}},
 {"action_type": "change_nova_service_state", "resource_id": "compute-1",
  "input_parameters": {"state": "disabled", "disabled_reason": "maintenance"}}]
EOF
audit="$(osc optimize audit create -g unclassified -s actuator --name drain-compute-1 \
    -p "actions=$(cat "$work/actions.json")" -f json)"
check "audit create" "$audit" \
    'd["State"] == "SUCCEEDED" and d["Strategy"] == "actuator" and d["Goal"] == "unclassified"
     and [a["action_type"] for a in d["Parameters"]["actions"]][-1] == "change_nova_service_state"'
audit_uuid="$(pick "$audit" 'd["UUID"]')"

osc_fails "a bad action is refused when the audit is created" \
    "actions[0].input_parameters.migration_type: 'teleport' is not one of ['live', 'cold'] (HTTP 400)" \
    optimize audit create -g unclassified -s actuator \
    -p 'actions=[{"action_type": "migrate", "resource_id": "'"$vm1"'", "input_parameters": {"migration_type": "teleport", "source_node": "compute-1"}}]'
expect "audit list" "drain-compute-1 SUCCEEDED" optimize audit list -f value -c Name -c State
expect "audit show by name" "$audit_uuid" optimize audit show drain-compute-1 -f value -c UUID

# --- the plan it left ------------------------------------------------------------------
# Table output: the client formats the efficacy indicators and global efficacy.
plans="$(osc optimize actionplan list --audit "$audit_uuid")"
row="$(table_row "$plans" "[0-9a-f-]{36}")"
case "$row" in *"| $audit_uuid | RECOMMENDED "*) echo "ok: actionplan list" ;; *) fail "actionplan list: $plans" ;; esac
plan="$(printf '%s\n' "$row" | awk -F'|' '{gsub(/ /, "", $2); print $2}')"
check "actionplan show" "$(osc optimize actionplan show "$plan" -f json)" \
    'd["State"] == "RECOMMENDED" and d["Audit"] == "'"$audit_uuid"'" and d["Strategy"] == "actuator"'

actions="$(osc optimize action list --action-plan "$plan" --detail -f json)"
check "action list: plan order and parents" "$actions" \
    '[a["Action"] for a in d] == ["change_nova_service_state", "migrate", "migrate", "change_node_power_state"]
     and d[0]["Parents"] == [] and d[1]["Parents"] == d[2]["Parents"] == [d[0]["UUID"]]
     and d[3]["Parents"] == [d[1]["UUID"], d[2]["UUID"]]
     and {a["State"] for a in d} == {"PENDING"}'
first_migrate="$(pick "$actions" 'd[1]["UUID"]')"
second_migrate="$(pick "$actions" 'd[2]["UUID"]')"
power_off="$(pick "$actions" 'd[3]["UUID"]')"

listed="$(osc optimize action list --action-plan "$plan")"
row="$(table_row "$listed" "$power_off")"
case "$row" in
    *"$first_migrate"*"$second_migrate"*"change_node_power_state"*) echo "ok: action list shows the parents" ;;
    *) fail "action list: $listed" ;;
esac
check "action show" "$(osc optimize action show "$power_off" -f json)" \
    'd["Parents"] == ["'"$first_migrate"'", "'"$second_migrate"'"]
     and d["Parameters"] == {"resource_id": "compute-1", "state": "off"}'

# --- skipping an action, starting, cancelling and deleting the plan --------------------
check "action update --state SKIPPED" \
    "$(osc optimize action update "$second_migrate" --state SKIPPED --reason "moved by hand" -f json)" \
    'd["State"] == "SKIPPED" and d["Status Message"] == "Action skipped by user. Reason: moved by hand"'
osc_fails "a skipped action cannot go back" "State transition not allowed: (SKIPPED -> PENDING) (HTTP 409)" \
    optimize action update "$second_migrate" --state PENDING
check "actionplan start" "$(osc optimize actionplan start "$plan" -f json)" 'd["State"] == "PENDING"'
osc_fails "a started plan cannot start again" "Couldn't start when state is 'PENDING'. (HTTP 400)" \
    optimize actionplan start "$plan"
check "actionplan cancel" "$(osc optimize actionplan cancel "$plan" -f json)" 'd["State"] == "CANCELLED"'
expect_sorted "cancelling cancels the pending actions" "CANCELLED CANCELLED CANCELLED SKIPPED" \
    optimize action list --action-plan "$plan" -f value -c State
osc optimize actionplan delete "$plan" > /dev/null
expect "actionplan delete" "" optimize actionplan list --audit "$audit_uuid" -f value -c UUID
osc optimize audit delete drain-compute-1 > /dev/null
expect "audit delete" "" optimize audit list -f value -c Name

echo "watcher scenario passed"
