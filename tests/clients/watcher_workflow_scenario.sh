#!/usr/bin/env bash
# python-watcherclient (`openstack optimize ...`), unchanged, against our
# server's recurring audits: a CONTINUOUS audit every 3 s on a small cloud
# made through the Placement API, whose second plan cancels its first;
# `audit update` suspending it (no new plan), resuming it (a new one),
# changing its interval and cancelling it; `audit delete`; a cron audit
# whose next run is on the minute; the force guard while a plan's long sleep
# is running (an audit without --force is cancelled or skipped, one with it
# is planned); an auto-triggered continuous audit whose plans the applier
# runs; `service list` showing the audit runner and the applier. The server
# runs both beside itself and looks for due audits every second.
#
#   tests/clients/watcher_workflow_scenario.sh
#
# Environment: see scenario_lib.sh (OSC_VENV, PLACEMENT_VENV).
set -euo pipefail

# shellcheck source=tests/clients/scenario_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/scenario_lib.sh"
osc_args=()
# The client reaches Watcher's endpoint, as the README registers it (the other
# scenario keeps the server root, which works too).
osc_path=/infra-optim
cat > "$work/runner.conf" <<EOF
[watcher_decision_engine]
continuous_audit_interval = 1
EOF
# A file-configured database is not the embedded default: the applier and
# the audit runner are asked for, and both read the second file too.
server_args=(--applier --audit-runner --config-file "$work/runner.conf")
start_server

# plans <audit>: the audit's plans as the client lists them (JSON, oldest first: the default order is by id).
plans() {
    osc optimize actionplan list --audit "$1" -f json -c UUID -c State
}

# plans_are <audit> <python expression over d, the list of plans>
plans_are() {
    python3 -c 'import json, sys; d = json.loads(sys.argv[1]); sys.exit(0 if eval("(" + sys.argv[2] + ")") else 1)' \
        "$(plans "$1")" "$2"
}

# audit_is <audit> <python expression over d, the audit shown as JSON>
audit_is() {
    python3 -c 'import json, sys; d = json.loads(sys.argv[1]); sys.exit(0 if eval("(" + sys.argv[2] + ")") else 1)' \
        "$(osc optimize audit show "$1" -f json)" "$2"
}

# --- the services ---------------------------------------------------------------------
services_active() {
    local listed
    listed="$(osc optimize service list -f value -c Name -c Status | sort | paste -sd ' ')"
    [ "$listed" = "watcher-applier ACTIVE watcher-decision-engine ACTIVE" ]
}
wait_for "service list: the audit runner and the applier are ACTIVE" 30 services_active

# --- a small cloud: three nodes, three consumers on cont-1 ----------------------------
add_nodes cont
for i in 1 2 3; do
    placement PUT "/allocations/5e0c1d2e-000$i-4a5b-8c9d-00000000000$i" '{"allocations": {"'"${node_uuid[1]}"'":
        {"resources": {"VCPU": 2, "MEMORY_MB": 2048, "DISK_GB": 10}}}, "consumer_generation": null,
        "project_id": "5e0c1d2e00000000000000000000000a", "user_id": "5e0c1d2e00000000000000000000000b",
        "consumer_type": "INSTANCE"}' > /dev/null
done
echo "ok: three nodes, three consumers on cont-1"

# --- a continuous audit every 3 s: each run's plan cancels the one before --------------
audit="$(osc optimize audit create -t CONTINUOUS -i 3 -g cluster_maintaining -s host_maintenance \
    -p maintenance_node=cont-1 --name every-3s -f json)"
check "audit create -t CONTINUOUS is stored PENDING" "$audit" \
    'd["State"] == "PENDING" and d["Audit Type"] == "CONTINUOUS" and d["Interval"] == "3"
     and d["Next Run Time"] is None and d["Strategy"] == "host_maintenance"'
audit_uuid="$(pick "$audit" 'd["UUID"]')"
# Each run's plan is RECOMMENDED and cancels the ones before (a slow client
# may see the first plan only after more runs).
wait_for "the runner makes a first plan" 30 plans_are "$audit_uuid" 'len(d) >= 1'
first="$(pick "$(plans "$audit_uuid")" 'd[0]["UUID"]')"
wait_for "a second plan, the first CANCELLED" 30 plans_are "$audit_uuid" \
    'len(d) >= 2 and d[0]["UUID"] == "'"$first"'" and d[0]["State"] == "CANCELLED"
     and d[-1]["State"] == "RECOMMENDED" and all(p["State"] == "CANCELLED" for p in d[:-1])'
check "the audit is ONGOING with a next run" "$(osc optimize audit show every-3s -f json)" \
    'd["State"] == "ONGOING" and d["Next Run Time"] and d["Hostname"]'
check "its plan disables cont-1 and moves each consumer" \
    "$(osc optimize action list --action-plan "$(pick "$(plans "$audit_uuid")" 'd[-1]["UUID"]')" -f json -c Action)" \
    '[a["Action"] for a in d] == ["change_nova_service_state", "migrate", "migrate", "migrate"]'

# --- audit update: suspend, resume, a new interval, cancel ------------------------------
check "audit update replace state=SUSPENDED" \
    "$(osc optimize audit update every-3s replace state=SUSPENDED -f json)" 'd["State"] == "SUSPENDED"'
# A run already under way when the audit was suspended keeps no plan, so the
# count is taken once the audit is seen suspended.
count="$(pick "$(plans "$audit_uuid")" 'len(d)')"
sleep 7 # two intervals and more
check "a suspended audit makes no plan" "$(plans "$audit_uuid")" "len(d) == $count"
osc_fails "a suspended audit cannot be PENDING again" "State transition not allowed: (SUSPENDED -> PENDING)" \
    optimize audit update every-3s replace state=PENDING
check "audit update replace state=ONGOING" \
    "$(osc optimize audit update every-3s replace state=ONGOING -f json)" 'd["State"] == "ONGOING"'
wait_for "a resumed audit makes a new plan" 30 plans_are "$audit_uuid" \
    "len(d) > $count and d[-1]['State'] == 'RECOMMENDED'"

check "audit update replace interval=3600" \
    "$(osc optimize audit update every-3s replace interval=3600 -f json)" 'd["Interval"] == "3600"'
# Rescheduled from now: the next run is about an hour away.
check "the new interval reschedules the audit" "$(osc optimize audit show every-3s -f json)" \
    '3500 < (datetime.datetime.fromisoformat(d["Next Run Time"])
             - datetime.datetime.utcnow()).total_seconds() <= 3600'
osc_fails "the audit type is not for updating" "can't be updated. (HTTP 400)" \
    optimize audit update every-3s replace audit_type=ONESHOT
check "audit update replace state=CANCELLED" \
    "$(osc optimize audit update every-3s replace state=CANCELLED -f json)" 'd["State"] == "CANCELLED"'
osc_fails "a cancelled audit cannot resume" "State transition not allowed: (CANCELLED -> ONGOING)" \
    optimize audit update every-3s replace state=ONGOING
osc optimize audit delete every-3s > /dev/null
expect_line "audit delete" every-3s no optimize audit list -f value -c Name
osc_fails "a deleted audit is gone" "(HTTP 404)" optimize audit show "$audit_uuid"

# --- a cron audit runs on the minute ---------------------------------------------------
nop='[{"action_type": "nop", "input_parameters": {"message": "hello"}}]'
osc_fails "a bad cron expression is refused" "(HTTP 400)" \
    optimize audit create -t CONTINUOUS -i "*/5 * * *" -g unclassified -s actuator -p "actions=$nop"
audit="$(osc optimize audit create -t CONTINUOUS -i "*/5 * * * *" -g unclassified -s actuator \
    -p "actions=$nop" --name every-5-minutes -f json)"
check "a cron audit" "$audit" 'd["Interval"] == "*/5 * * * *" and d["State"] == "PENDING"'
wait_for "the cron audit has run once" 30 audit_is every-5-minutes 'd["Next Run Time"] is not None'
# The boundary may have just passed when we look (the runner has not run it yet): allow a
# little slack before now, never more than one period ahead.
check "its next run is on a five-minute boundary" "$(osc optimize audit show every-5-minutes -f json)" \
    'd["State"] == "ONGOING"
     and (lambda t: t.second == 0 and t.microsecond == 0 and t.minute % 5 == 0
          and -30 < (t - datetime.datetime.utcnow()).total_seconds() <= 300)(
         datetime.datetime.fromisoformat(d["Next Run Time"]))'
osc optimize audit update every-5-minutes replace state=CANCELLED > /dev/null
osc optimize audit delete every-5-minutes > /dev/null

# --- the force guard while a plan runs --------------------------------------------------
# A long sleep the applier is inside of holds a plan ONGOING.
sleepy='[{"action_type": "sleep", "input_parameters": {"duration": 300}}]'
audit="$(osc optimize audit create -g unclassified -s actuator -p "actions=$sleepy" --name sleepy -f json)"
sleepy_plan="$(pick "$(plans "$(pick "$audit" 'd["UUID"]')")" 'd[0]["UUID"]')"
osc optimize actionplan start "$sleepy_plan" > /dev/null
wait_for "the applier runs the sleeping plan" 30 plan_state_is "$sleepy_plan" ONGOING

audit="$(osc optimize audit create -g unclassified -s actuator -p "actions=$nop" -f json)"
check "a ONESHOT audit without --force is cancelled" "$audit" \
    'd["State"] == "CANCELLED"
     and d["Status Message"] == "Action Plan '"$sleepy_plan"' is currently running."'
check "and has no plan" "$(plans "$(pick "$audit" 'd["UUID"]')")" 'd == []'
audit="$(osc optimize audit create -g unclassified -s actuator -p "actions=$nop" --force -f json)"
check "a ONESHOT audit with --force is planned" "$audit" 'd["State"] == "SUCCEEDED" and d["Force"] is True'
check "its plan" "$(plans "$(pick "$audit" 'd["UUID"]')")" '[p["State"] for p in d] == ["RECOMMENDED"]'

waiting="$(pick "$(osc optimize audit create -t CONTINUOUS -i 2 -g unclassified -s actuator \
    -p "actions=$nop" --name waiting -f json)" 'd["UUID"]')"
forced="$(pick "$(osc optimize audit create -t CONTINUOUS -i 2 -g unclassified -s actuator \
    -p "actions=$nop" --name forced --force -f json)" 'd["UUID"]')"
wait_for "a forced continuous audit runs" 30 plans_are "$forced" 'len(d) >= 2'
check "an unforced one is skipped while the plan runs" "$(plans "$waiting")" 'd == []'
check "and waits, PENDING" "$(osc optimize audit show waiting -f json)" 'd["State"] == "PENDING"'
osc optimize actionplan cancel "$sleepy_plan" > /dev/null
wait_for "the sleeping plan is cancelled" 30 plan_state_is "$sleepy_plan" CANCELLED
wait_for "once no plan runs, the waiting audit is planned" 30 plans_are "$waiting" \
    '[p["State"] for p in d][-1:] == ["RECOMMENDED"]'
for name in waiting forced; do
    osc optimize audit update "$name" replace state=CANCELLED > /dev/null
done

# --- auto-trigger: the applier runs each plan the runner makes --------------------------
audit_uuid="$(pick "$(osc optimize audit create -t CONTINUOUS -i 2 --auto-trigger -g unclassified \
    -s actuator -p "actions=$nop" --name triggered -f json)" 'd["UUID"]')"
wait_for "auto-triggered plans are run by the applier" 30 plans_are "$audit_uuid" \
    '[p["State"] for p in d][:2] == ["SUCCEEDED", "SUCCEEDED"]'
osc optimize audit update triggered replace state=CANCELLED > /dev/null
check "service list after all that" "$(osc optimize service list -f json)" \
    'sorted((s["Name"], s["Status"]) for s in d)
     == [("watcher-applier", "ACTIVE"), ("watcher-decision-engine", "ACTIVE")]'

echo "watcher workflow scenario passed"
