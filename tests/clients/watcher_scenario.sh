#!/usr/bin/env bash
# python-watcherclient (`openstack optimize ...`), unchanged, against our
# server's /v1 API: the built-in goals and strategies, an actuator audit whose
# actions come from a parameters file, the action plan it leaves (its actions
# and their parents as the weight planner set them), skipping an action and
# deleting that never-started plan and its audit; a plan whose long sleep the
# applier (started beside the server) is running when it is cancelled; and
# host_maintenance on three nodes made through the Placement API, run to
# SUCCEEDED, its consumers found moved and the node disabled; audit templates
# (created with a scope and default parameters, listed, shown, updated, used by
# `audit create -a`, deleted); the applier among the services; a strategy's
# state, the scoring engines and the compute data model. Checks what
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
# A file-configured database is not the embedded default, so the applier
# that runs started plans is asked for.
server_args=(--applier)
start_server

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
expect "strategy list --goal dummy" "dummy
dummy_with_resize
dummy_with_scorer" optimize strategy list --goal dummy -f value -c Name
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

# --- skipping an action, deleting a plan never started ----------------------------------
# This plan is never started, so the applier leaves it alone and every
# expectation below holds whatever the applier is doing.
check "action update --state SKIPPED" \
    "$(osc optimize action update "$second_migrate" --state SKIPPED --reason "moved by hand" -f json)" \
    'd["State"] == "SKIPPED" and d["Status Message"] == "Action skipped by user. Reason: moved by hand"'
osc_fails "a skipped action cannot go back" "State transition not allowed: (SKIPPED -> PENDING) (HTTP 409)" \
    optimize action update "$second_migrate" --state PENDING
expect_sorted "the other actions stay pending" "PENDING PENDING PENDING SKIPPED" \
    optimize action list --action-plan "$plan" -f value -c State
osc optimize actionplan delete "$plan" > /dev/null
expect "actionplan delete" "" optimize actionplan list --audit "$audit_uuid" -f value -c UUID
osc optimize audit delete drain-compute-1 > /dev/null
expect "audit delete" "" optimize audit list -f value -c Name

# --- starting a plan and cancelling it while it runs -----------------------------------
# A long sleep first: the applier is inside it when the cancel arrives, so the
# plan is ONGOING then and ends CANCELLED, the sleep cut short.
cat > "$work/sleepy.json" <<EOF
[{"action_type": "sleep", "input_parameters": {"duration": 300}}]
EOF
audit="$(osc optimize audit create -g unclassified -s actuator --name sleepy \
    -p "actions=$(cat "$work/sleepy.json")" -f json)"
audit_uuid="$(pick "$audit" 'd["UUID"]')"
plan="$(osc optimize actionplan list --audit "$audit_uuid" -f value -c UUID)"
check "actionplan start" "$(osc optimize actionplan start "$plan" -f json)" 'd["State"] == "PENDING"'
wait_for "the applier runs the plan" 60 plan_state_is "$plan" ONGOING
osc_fails "a running plan cannot start again" "Couldn't start when state is 'ONGOING'. (HTTP 400)" \
    optimize actionplan start "$plan"
osc optimize actionplan cancel "$plan" > /dev/null
wait_for "actionplan cancel" 60 plan_state_is "$plan" CANCELLED
actions="$(osc optimize action list --action-plan "$plan" --detail -f json)"
# Ended within wait_for's 60 s, so the 300 s sleep was cut short.
check "the sleep is cut short" "$actions" '[a["State"] for a in d] == ["CANCELLED"]'
osc optimize actionplan delete "$plan" > /dev/null
osc optimize audit delete sleepy > /dev/null

# --- host_maintenance on a small cloud set up through the Placement API ---------------
add_nodes maint
vms=(3f0c1d2e-1111-4a5b-8c9d-000000000001 3f0c1d2e-2222-4a5b-8c9d-000000000002
     3f0c1d2e-3333-4a5b-8c9d-000000000003)
for vm in "${vms[@]}"; do
    placement PUT "/allocations/$vm" '{"allocations": {"'"${node_uuid[1]}"'": {"resources":
        {"VCPU": 2, "MEMORY_MB": 2048, "DISK_GB": 10}}}, "consumer_generation": null,
        "project_id": "3f0c1d2e00000000000000000000000a", "user_id": "3f0c1d2e00000000000000000000000b",
        "consumer_type": "INSTANCE"}' > /dev/null
done
echo "ok: three nodes, three consumers on maint-1"

osc_fails "an unknown node is refused" "(HTTP 400)" \
    optimize audit create -g cluster_maintaining -s host_maintenance -p maintenance_node=no-such-node
audit="$(osc optimize audit create -g cluster_maintaining -s host_maintenance \
    -p maintenance_node=maint-1 -f json)"
check "host_maintenance audit" "$audit" 'd["State"] == "SUCCEEDED" and d["Strategy"] == "host_maintenance"'
audit_uuid="$(pick "$audit" 'd["UUID"]')"
plan="$(osc optimize actionplan list --audit "$audit_uuid" -f value -c UUID)"
actions="$(osc optimize action list --action-plan "$plan" --detail -f json)"
check "the plan disables maint-1, then moves each consumer" "$actions" \
    '[a["Action"] for a in d] == ["change_nova_service_state", "migrate", "migrate", "migrate"]
     and d[0]["Parents"] == [] and all(a["Parents"] for a in d[1:])'
for uuid in $(pick "$actions" '" ".join(a["UUID"] for a in d[1:])'); do
    check "each migration names its destination" "$(osc optimize action show "$uuid" -f json)" \
        'd["Parameters"]["source_node"] == "maint-1"
         and d["Parameters"]["destination_node"] in ("maint-2", "maint-3")
         and d["Parameters"]["resource_id"] in '"$(printf '"%s",' "${vms[@]}" | sed 's/^/(/; s/$/)/')"
done
check "actionplan start" "$(osc optimize actionplan start "$plan" -f json)" 'd["State"] == "PENDING"'
wait_for "the maintenance plan ran" 60 plan_state_is "$plan" SUCCEEDED
expect_sorted "every action succeeded" "SUCCEEDED SUCCEEDED SUCCEEDED SUCCEEDED" \
    optimize action list --action-plan "$plan" -f value -c State
for vm in "${vms[@]}"; do
    check "consumer $vm left maint-1" "$(placement GET "/allocations/$vm")" \
        'len(d["allocations"]) == 1 and set(d["allocations"]) <= {"'"${node_uuid[2]}"'", "'"${node_uuid[3]}"'"}
         and list(d["allocations"].values())[0]["resources"] == {"VCPU": 2, "MEMORY_MB": 2048, "DISK_GB": 10}'
done
check "maint-1 holds nothing" "$(placement GET "/resource_providers/${node_uuid[1]}/allocations")" \
    'd["allocations"] == {}'
check "maint-1 is disabled" "$(placement GET "/resource_providers/${node_uuid[1]}/traits")" \
    '"COMPUTE_STATUS_DISABLED" in d["traits"]'

# --- audit templates: create, list, show, update, audits from them, delete -----------
# A template names a goal and a strategy (and, at 1.7, default parameters);
# `audit create -a` takes them from it. python-watcherclient sends 1.5 unless
# told otherwise, so default parameters need --os-infra-optim-api-version 1.7.
template="$(osc optimize audittemplate create at-drain cluster_maintaining -s host_maintenance \
    -d "drain a node" -f json)"
check "audittemplate create" "$template" \
    'd["Name"] == "at-drain" and d["Goal"] == "cluster_maintaining" and d["Strategy"] == "host_maintenance"
     and d["Description"] == "drain a node" and d["Audit Scope"] == []'
template_uuid="$(pick "$template" 'd["UUID"]')"
osc_fails "a taken template name is refused" \
    "An audit_template with UUID or name at-drain already exists (HTTP 409)" \
    optimize audittemplate create at-drain cluster_maintaining
cat > "$work/scope.json" <<EOF
[{"compute": [{"exclude": [{"compute_nodes": [{"name": "maint-3"}]}]}]}]
EOF
template="$(osc optimize --os-infra-optim-api-version 1.7 audittemplate create at-balance \
    workload_balancing -s workload_stabilization --scope "$work/scope.json" -p retry_count=2 -f json)"
check "audittemplate create with a scope and default parameters" "$template" \
    'd["Strategy"] == "workload_stabilization" and d["Default Parameters"] == {"retry_count": 2}
     and d["Audit Scope"] == [{"compute": [{"exclude": [{"compute_nodes": [{"name": "maint-3"}]}]}]}]'
osc_fails "default parameters need a strategy" \
    "default_parameters requires a strategy to be specified (HTTP 400)" \
    optimize --os-infra-optim-api-version 1.7 audittemplate create at-nostrategy workload_balancing \
    -p retry_count=2

# Table output: the short list's columns.
templates="$(osc optimize audittemplate list)"
case "$(table_row "$templates" at-drain)" in
    *"| $template_uuid | at-drain "*"| cluster_maintaining "*"| host_maintenance "*) echo "ok: audittemplate list" ;;
    *) fail "audittemplate list: $templates" ;;
esac
expect "audittemplate show by name" "$template_uuid" optimize audittemplate show at-drain -f value -c UUID
check "audittemplate show by uuid" "$(osc optimize audittemplate show "$template_uuid" -f json)" \
    'd["Name"] == "at-drain" and d["Goal"] == "cluster_maintaining"'
check "audittemplate update" \
    "$(osc optimize audittemplate update at-drain replace description="drain one node" -f json)" \
    'd["Description"] == "drain one node" and d["Updated At"] is not None'
osc_fails "a strategy of another goal is refused on update too" \
    "'dummy' strategy does not relate to the 'cluster_maintaining' goal" \
    optimize audittemplate update at-drain replace strategy=dummy

# The audits take the goal, strategy, scope and default parameters from their
# template; -p overrides a default. Their plans are never started.
audit="$(osc optimize audit create -a at-balance -f json)"
check "audit create -a" "$audit" \
    'd["Goal"] == "workload_balancing" and d["Strategy"] == "workload_stabilization"
     and d["State"] == "SUCCEEDED" and d["Parameters"]["retry_count"] == 2
     and d["Audit Scope"] == [{"compute": [{"exclude": [{"compute_nodes": [{"name": "maint-3"}]}]}]}]'
first_from_template="$(pick "$audit" 'd["UUID"]')"
audit="$(osc optimize audit create -a at-balance -p retry_count=3 -f json)"
check "audit create -a -p overrides a default parameter" "$audit" \
    'd["Strategy"] == "workload_stabilization" and d["Parameters"]["retry_count"] == 3'
second_from_template="$(pick "$audit" 'd["UUID"]')"
osc optimize audit delete "$first_from_template" "$second_from_template" > /dev/null

osc optimize audittemplate delete at-drain > /dev/null
expect "audittemplate delete" "at-balance" optimize audittemplate list -f value -c Name
osc_fails "a deleted template is gone" "AuditTemplate at-drain could not be found (HTTP 404)" \
    optimize audittemplate show at-drain
osc optimize audittemplate delete at-balance > /dev/null

# --- services, strategy state, scoring engines, the data model -------------------------
# The applier started beside the server beats as watcher-applier.
services="$(osc optimize service list)"
case "$(table_row "$services" watcher-applier)" in
    *"| ACTIVE "*) echo "ok: service list" ;;
    *) fail "service list: $services" ;;
esac
check "service show" "$(osc optimize service show watcher-applier -f json)" \
    'd["Name"] == "watcher-applier" and d["Status"] == "ACTIVE" and d["Last seen up"]'
check "strategy state" "$(osc optimize strategy state host_maintenance -f json)" \
    '[r["Type"] for r in d] == ["Datasource", "Metrics", "CDM", "Name"]
     and d[0]["State"] == "Placement: available" and d[0]["Mandatory"] is True
     and d[3]["State"] == "host_maintenance"'
expect "scoringengine list" "dummy_scorer
dummy_min_scorer
dummy_max_scorer
dummy_avg_scorer" optimize scoringengine list -f value -c Name
check "scoringengine show" "$(osc optimize scoringengine show dummy_scorer -f json)" \
    'd["Name"] == "dummy_scorer" and d["Description"] == "Dummy workload classifier"
     and json.loads(d["Metainfo"])["workloads"][0] == "idle"'
# The compute model after host_maintenance: the three consumers on maint-2 and
# maint-3 with their allocations, maint-1 a row of its own without a server.
check "datamodel list" "$(osc optimize datamodel list --detail -f json)" \
    '{r["Server_UUID"] for r in d if r["Server_UUID"]} == set('"$(printf '"%s",' "${vms[@]}" | sed 's/^/(/; s/$/)/')"')
     and all(r["Node Host Name"] in ("maint-2", "maint-3") and r["Server Vcpus"] == 2
             and r["Server Memory"] == 2048 and r["Node Vcpus"] == 8 for r in d if r["Server_UUID"])
     and [r["Node Host Name"] for r in d if not r["Server_UUID"]].count("maint-1") == 1'

echo "watcher scenario passed"
