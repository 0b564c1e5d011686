#!/usr/bin/env bash
# What-ifs without editing files: --set, --explain, compare, sweeps without a constraint and
# over lists (software included), tables within 100 columns (--wide), --emit job and --emit
# megatron.
#
# Needs bash, coreutils, grep, sed, awk and cmp (no python, no jq).
. "$(dirname "$0")/cli.bash" cli_whatif "$@"

job=$ROOT/configs/gpt3-175b-a100.json
small=$DATA/search/small-cost.json

# --- --set equals editing the file (byte-identical JSON) ---------------------------------
cp "$job" "$tmp/job.json"
run set_tp run "$tmp/job.json" --format json --set parallel.tp=4 --set parallel.pp=16 \
    --set reliability.replications=50
expect_rc set_tp 0
sed -e 's/"tp": 8, "pp": 8/"tp": 4, "pp": 16/' -e 's/"replications": 400/"replications": 50/' \
    "$job" >"$tmp/edited.json"
cmp -s "$job" "$tmp/edited.json" && fail "set_tp: the sed edit changed nothing"
cp "$tmp/edited.json" "$tmp/job.json"
run edited run "$tmp/job.json" --format json
expect_rc edited 0
cmp -s "$tmp/set_tp.out" "$tmp/edited.out" || fail "--set parallel.tp/pp differs from the edited file"

# A key the file does not have, in an object it does not have (cost.gpu_hour), and a
# catalogue model's key (the reference is replaced by the file's content).
cp "$job" "$tmp/job.json"
run set_price run "$tmp/job.json" --format json --set cost.gpu_hour.on_demand=2.5
expect_rc set_price 0
sed -e 's/"cost": {"prices": "aws-p4de-2024-09",/"cost": {"prices": "aws-p4de-2024-09", "gpu_hour": {"on_demand": 2.5},/' \
    "$job" >"$tmp/job.json"
run edited_price run "$tmp/job.json" --format json
cmp -s "$tmp/set_price.out" "$tmp/edited_price.out" || fail "--set cost.gpu_hour.on_demand differs from the edited file"
expect_in "$tmp/set_price.out" '"cost_per_hour":  2560' "1024 GPUs at 2.5 USD per GPU-hour"

cp "$job" "$tmp/job.json"
run set_layers run "$tmp/job.json" --format json --set model.layers=48
expect_rc set_layers 0
run base run "$tmp/job.json" --format json
expect_rc base 0
# Half the layers: half the layer parameters (GPT-3 175B: 12 h^2 per layer, h = 12288,
# plus 1.8 h^2-scale biases/norms; checked as the exact count of 48 layers fewer).
p_full=$(sed -n 's/^  "parameters":  \([0-9]*\),$/\1/p' "$tmp/base.out")
p_half=$(sed -n 's/^  "parameters":  \([0-9]*\),$/\1/p' "$tmp/set_layers.out")
layer=$(( (p_full - p_half) / 48 ))
# One GPT layer: 12 h^2 + 13 h parameters (QKV, projection, 2 MLP GEMMs, biases, 2 norms).
[ "$layer" -eq $(( 12 * 12288 * 12288 + 13 * 12288 )) ] ||
    fail "--set model.layers=48: $layer parameters per removed layer, expected 12 h^2 + 13 h"

# A sweep: --set on a list, on a per-system price and into a listed system's catalogue file
# equals the edited sweep (elapsed_s, the one wall-clock figure, left out).
cp "$small" "$tmp/sweep.json"
run sw_set sweep "$tmp/sweep.json" --format json --no-progress --set 'nodes=[1,2]' \
    --set cost.by_system.dgx-h100.gpu_hour.spot=2 --set 'systems[0].gpus_per_node=4'
expect_rc sw_set 0
a100=$(sed -e 's/^/    /' "$ROOT/hardware/systems/dgx-a100-80g.json" | sed -e 's/"gpus_per_node": 8/"gpus_per_node": 4/')
grep -q '"gpus_per_node": 8' "$ROOT/hardware/systems/dgx-a100-80g.json" || fail "dgx-a100-80g no longer has 8 GPUs per node"
{
    sed -n '1,/"systems":/p' "$small" | sed '$d'
    printf '  "systems": [\n%s,\n    "dgx-h100"],\n' "$a100"
    sed -n '/"systems":/,$p' "$small" | sed '1d' |
        sed -e 's/"nodes": \[1, 2, 4\]/"nodes": [1, 2]/' -e 's/"spot": 3.5/"spot": 2/'
} >"$tmp/sweep.json"
run sw_edited sweep "$tmp/sweep.json" --format json --no-progress
expect_rc sw_edited 0
grep -v '"elapsed_s"' "$tmp/sw_set.out" >"$tmp/sw_set.cmp"
grep -v '"elapsed_s"' "$tmp/sw_edited.out" >"$tmp/sw_edited.cmp"
cmp -s "$tmp/sw_set.cmp" "$tmp/sw_edited.cmp" || fail "sweep --set differs from the edited sweep: $(diff "$tmp/sw_set.cmp" "$tmp/sw_edited.cmp" | head -5)"
run sw_gpn sweep "$small" --format json --no-progress --set 'systems[0].gpus_per_node=4' \
    --csv "$tmp/gpn.csv"
expect_rc sw_gpn 0
expect_in "$tmp/gpn.csv" "dgx-a100-80g,1,4," "systems[0].gpus_per_node=4: one A100 node has 4 GPUs"
expect_in "$tmp/gpn.csv" "dgx-h100,1,8," "systems[0].gpus_per_node=4 leaves the H100 system alone"

# --- bad --set: exit 2, the --set and the JSON path named -------------------------------
run bad_div run "$job" --set parallel.tp=3
expect_rc bad_div 2
expect_in "$tmp/bad_div.err" "(from --set parallel.tp=3)" "a value the validator refuses names the --set"
run bad_key run "$job" --set parallel.tpp=4
expect_rc bad_key 2
expect_in "$tmp/bad_key.err" "parallel.tpp: unknown key" "an unknown key by --set"
expect_in "$tmp/bad_key.err" "(from --set parallel.tpp=4)" "an unknown key names the --set"
run bad_type run "$job" --set parallel.tp=four
expect_rc bad_type 2
expect_in "$tmp/bad_type.err" "parallel.tp" "a string for a number names the path"
expect_in "$tmp/bad_type.err" "(from --set parallel.tp=four)" "a string for a number names the --set"
run bad_path run "$job" --set 'parallel..tp=4'
expect_rc bad_path 2
expect_in "$tmp/bad_path.err" "--set parallel..tp=4: parallel..tp: an empty key" "a malformed path"
run bad_into run "$job" --set parallel.tp.size=4
expect_rc bad_into 2
expect_in "$tmp/bad_into.err" "--set parallel.tp.size=4: parallel.tp: 8 is not an object" "a path through a number"
run bad_index run "$job" --set 'reliability.failures[3].mtbf=5'
expect_rc bad_index 2
expect_in "$tmp/bad_index.err" "[3] is out of range" "an index past the end of a list"
run bad_form run "$job" --set parallel.tp
expect_rc bad_form 2
expect_in "$tmp/bad_form.err" "expected PATH=VALUE" "--set without a value"
run bad_model run "$job" --set model=no-such-model
expect_rc bad_model 2
expect_in "$tmp/bad_model.err" "unknown model \"no-such-model\"" "a catalogue name by --set"

# --- --explain -----------------------------------------------------------------------------
run explain run "$job" --format json --explain --set cost.gpu_hour.on_demand=3
expect_rc explain 0
tr -d '\n ' <"$tmp/explain.out" >"$tmp/explain.flat"
expect_in "$tmp/explain.flat" '{"key":"cost.gpu_hour.on_demand","value":3,"source":"--setcost.gpu_hour.on_demand=3"}' "explain: a --set key"
expect_in "$tmp/explain.flat" '{"key":"parallel.tp","value":8,"source":"file"}' "explain: a file key"
expect_in "$tmp/explain.flat" '{"key":"model.layers","value":96,"source":"cataloguemodels/gpt3-175b.json"}' "explain: a catalogue key"
expect_in "$tmp/explain.flat" '{"key":"parallel.dp_overlap","value":true,"source":"softwareprofilemegatron-core"}' "explain: a software profile's switch"
expect_in "$tmp/explain.flat" '{"key":"reliability.restart_overhead","value":0,"source":"default"}' "explain: a default"
expect_in "$tmp/explain.flat" '{"key":"reliability.recovery","value":"defaultphases:crashdetectedatonce' "explain: the default recovery"
expect_in "$tmp/explain.flat" '{"key":"parallel.dp","value":16,"source":"derived"}' "explain: dp derived (1024 / (8 x 8))"
# The catalogue price is overridden by the --set, so the price file's 5.12 is not listed.
grep -qF '"value":5.12' "$tmp/explain.flat" && fail "explain lists the price file's price under a --set"
# Every default applied to the file is in assumptions.defaults, with --explain or without.
run plain run "$job" --format json
tr -d '\n ' <"$tmp/plain.out" >"$tmp/plain.flat"
expect_in "$tmp/plain.flat" '"defaults":[' "assumptions.defaults"
expect_in "$tmp/plain.flat" '{"key":"reliability.restart_overhead","value":0,"source":"default"}' "assumptions.defaults names the key"
run explain_table run "$job" --format table --explain
expect_rc explain_table 0
expect_in "$tmp/explain_table.out" "resolved inputs (key, value, where it came from):" "explain table"
run explain_csv run "$job" --format csv --explain
expect_rc explain_csv 2

# --- compare ---------------------------------------------------------------------------------
run cmp_self compare "$job" "$job" --format json --set reliability.replications=40
expect_rc cmp_self 0
expect_in "$tmp/cmp_self.out" '"differences":  0' "a job compared with itself has no differences"
run cmp_self_t compare "$job" "$job" --format table --set reliability.replications=40
expect_in "$tmp/cmp_self_t.out" "(no differences)" "compare table of a job with itself"
sed -e 's/"tp": 8, "pp": 8/"tp": 4, "pp": 16/' "$job" >"$tmp/b.json"
run cmp_two compare "$job" "$tmp/b.json" --format csv --set reliability.replications=40
expect_rc cmp_two 0
expect_in "$tmp/cmp_two.out" "key,job1,job2,relative2,differs" "compare CSV header"
# layout.pp 8 -> 16 is +100%, tp 8 -> 4 is -50% (relative differences from the first).
expect_in "$tmp/cmp_two.out" "layout.pp,8,16,1,true" "compare: pp doubled is +100%"
expect_in "$tmp/cmp_two.out" "layout.tp,8,4,-0.5,true" "compare: tp halved is -50%"
# Each column is that job's own run answer.
run run_b run "$tmp/b.json" --format json --set reliability.replications=40
it_b=$(sed -n 's/^  "iteration_time_s":  \(.*\),$/\1/p' "$tmp/run_b.out")
expect_in "$tmp/cmp_two.out" ",$it_b," "compare: the second column is run's iteration time"
run cmp_one compare "$job"
expect_rc cmp_one 2

# --- sweeps: no constraint, brute-force argmin -------------------------------------------------
sed -e '/"constraint":/d' "$small" >"$tmp/nc.json"
grep -q constraint "$tmp/nc.json" && fail "the constraint line was not removed"
run nc sweep "$tmp/nc.json" --format json --no-progress --exhaustive --csv "$tmp/nc.csv"
expect_rc nc 0
expect_in "$tmp/nc.out" '"constraint":  "none"' "a sweep without a constraint"
expect_in "$tmp/nc.out" '"found":  true' "an unconstrained sweep always has an answer"
# The cheapest simulated row of the exhaustive CSV is the answer (system, nodes, pricing,
# batch and layout).
argmin=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $c["cost_usd"] != "" && (best == "" || $c["cost_usd"] + 0 < best + 0) {
        best = $c["cost_usd"];
        row = $c["system"] " " $c["nodes"] " " $c["pricing"] " " $c["global_batch"] " " $c["tp"] " " $c["pp"] " " $c["microbatch"] " " $c["zero"] " " $c["recompute"] }
    END { print row }' "$tmp/nc.csv")
[ -n "$argmin" ] || fail "no priced row in the exhaustive CSV"
read -r a_sys a_nodes a_pricing a_gb a_tp a_pp a_mb a_zero a_rc <<<"$argmin"
tr -d '\n ' <"$tmp/nc.out" | sed 's/.*"top":\[{//; s/}\],"pareto".*//' >"$tmp/nc.top0"
for kv in "\"system\":\"$a_sys\"" "\"nodes\":$a_nodes," "\"pricing\":\"$a_pricing\"" \
          "\"global_batch\":$a_gb," "\"tp\":$a_tp," "\"pp\":$a_pp," "\"microbatch\":$a_mb," \
          "\"zero\":$a_zero," "\"recompute\":\"$a_rc\""; do
    expect_in "$tmp/nc.top0" "$kv" "unconstrained best is the CSV argmin ($argmin)"
done

# --- sweeps over lists: one answer per combination ----------------------------------------
run sc sweep "$small" --format json --no-progress --set 'tokens=["10B","20B"]' \
    --set 'constraint.deadline=["20 d","1 h"]'
expect_rc sc 0
[ "$(grep -c '"scenario":  {' "$tmp/sc.out")" -eq 4 ] || fail "2 token budgets x 2 deadlines: 4 scenarios"
# The first combination is also the top-level answer (the contract keys stay):
run sc_first sweep "$small" --format json --no-progress --set tokens=10B --set 'constraint.deadline="20 d"'
first_best=$(sed -n 's/^    "cost_total":  \(.*\),$/\1/p' "$tmp/sc_first.out" | head -1)
expect_in "$tmp/sc.out" "\"cost_total\":  $first_best," "the first combination's answer is the top-level answer"
tr -d '\n ' <"$tmp/sc.out" >"$tmp/sc.flat"
expect_in "$tmp/sc.flat" '"scenario":{"tokens":"10B","constraint.deadline":"1h"}' "the scenario names what it fixes"
run sc_csv sweep "$small" --format csv --no-progress --set 'tokens=["10B","20B"]'
expect_rc sc_csv 0
head -1 "$tmp/sc_csv.out" | grep -q '^scenario,' || fail "scenario CSV: a leading scenario column"
[ "$(grep -c '^2,' "$tmp/sc_csv.out")" -ge 1 ] || fail "scenario CSV: rows of the second combination"
run sc_empty sweep "$small" --no-progress --set 'tokens=[]'
expect_rc sc_empty 2
expect_in "$tmp/sc_empty.err" "tokens: an empty list" "an empty list of token budgets"

# A software list is compared like the others: combination k is the sweep run with profile k
# alone (its best's cost to the bit), and names its profile in `scenario` and in the table.
profiles='software=["megatron-core","pytorch-fsdp"]'
run sw_cmp sweep "$small" --format json --no-progress --set "$profiles"
expect_rc sw_cmp 0
[ "$(grep -c '"scenario":  {' "$tmp/sw_cmp.out")" -eq 2 ] || fail "2 profiles: not 2 scenarios"
tr -d '\n ' <"$tmp/sw_cmp.out" >"$tmp/sw_cmp.flat"
k=0
for s in megatron-core pytorch-fsdp; do
    run "sw_$s" sweep "$small" --format json --no-progress --set "software=$s"
    expect_rc "sw_$s" 0
    want=$(sed -n 's/^    "cost_total":  \(.*\),$/\1/p' "$tmp/sw_$s.out" | head -1)
    # per scenario (each ends with its "scenario" key): the first cost_total is its best's
    got=$(awk -v k="$k" '/^  "scenarios":/ { on = 1 } on && n == k && /^        "cost_total":/ && !d++ {
              sub(/,$/, "", $2); print $2 } on && /"scenario":  \{/ { n++ }' "$tmp/sw_cmp.out")
    [ -n "$want" ] && [ "$want" = "$got" ] ||
        fail "software combination $((k + 1)): best costs $got, the sweep of $s alone $want"
    expect_in "$tmp/sw_cmp.flat" "\"scenario\":{\"software\":\"$s\"}" "the scenario names profile $s"
    k=$((k + 1))
done
run sw_cmp_t sweep "$small" --format table --no-progress --set "$profiles"
expect_rc sw_cmp_t 0
expect_in "$tmp/sw_cmp_t.out" "=== combination 2 of 2: software = pytorch-fsdp" "table: a section per profile"
# --search-software keeps the searched form: one answer (no scenarios), the cheaper
# profile's best (a dimension searched like the systems).
run sw_search sweep "$small" --format json --no-progress --set "$profiles" --search-software
expect_rc sw_search 0
grep -q '"scenarios"' "$tmp/sw_search.out" && fail "--search-software: still one answer per profile"
cheap=$(printf '%s\n' "$(sed -n 's/^    "cost_total":  \(.*\),$/\1/p' "$tmp/sw_megatron-core.out" | head -1) megatron-core" \
            "$(sed -n 's/^    "cost_total":  \(.*\),$/\1/p' "$tmp/sw_pytorch-fsdp.out" | head -1) pytorch-fsdp" |
        sort -g | head -1)
expect_in "$tmp/sw_search.out" "    \"cost_total\":  ${cheap% *}," "--search-software: the best is the cheaper profile's"
expect_in "$tmp/sw_search.out" "    \"software\":  \"${cheap#* }\"," "--search-software: the best names the cheaper profile"
# A value listed twice is refused, naming the second.
run sw_dup sweep "$small" --no-progress --set 'software=["megatron-core","megatron-core"]'
expect_rc sw_dup 2
expect_in "$tmp/sw_dup.err" "small-cost.json: software[1]: the same value as software[0]" "a profile listed twice"

# --- tables fit 100 columns: prose wrapped, --wide leaves it ------------------------------
# No table line passes 100 columns (UTF-8 characters); with --wide some do (for run and
# sensitivity the same words: only the line breaks and the continuation indent differ);
# JSON is the same either way.
cols() { LC_ALL=C.UTF-8 awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$1"; }
flat() { tr -s ' \n' '  ' <"$1"; }
for c in "run $job" "sweep $small --no-progress" "sensitivity $DATA/report/tiny-job.json --no-progress"; do
    name=wrap_${c%% *}
    # shellcheck disable=SC2086
    run "$name" $c --format table
    expect_rc "$name" 0
    # shellcheck disable=SC2086
    run "${name}_wide" $c --format table --wide
    expect_rc "${name}_wide" 0
    [ "$(cols "$tmp/$name.out")" -le 100 ] ||
        fail "$name: a line of $(cols "$tmp/$name.out") columns: $(LC_ALL=C.UTF-8 awk 'length($0) > 100' "$tmp/$name.out" | head -2)"
    [ "$(cols "$tmp/${name}_wide.out")" -gt 100 ] || fail "$name --wide: no line past 100 columns (nothing was wrapped)"
    # (a sweep's --wide also widens its tables: the words differ there)
    [ "$name" = wrap_sweep ] || [ "$(flat "$tmp/$name.out")" = "$(flat "$tmp/${name}_wide.out")" ] ||
        fail "$name: wrapping changed the words: $(diff <(flat "$tmp/$name.out" | tr ' ' '\n') <(flat "$tmp/${name}_wide.out" | tr ' ' '\n') | head -6)"
done
run wrap_json sweep "$small" --format json --no-progress
run wrap_json_wide sweep "$small" --format json --no-progress --wide
cmp -s <(grep -v elapsed_s "$tmp/wrap_json.out") <(grep -v elapsed_s "$tmp/wrap_json_wide.out") ||
    fail "--wide changed the JSON"

# --- --emit job reproduces the sweep's best ------------------------------------------------
run emit sweep "$small" --format json --no-progress --emit job "$tmp/best.json"
expect_rc emit 0
[ -s "$tmp/best.json" ] || fail "--emit job wrote nothing"
run emitted run "$tmp/best.json" --format json
expect_rc emitted 0
for key in iteration_time_s tokens_per_s memory_per_gpu_bytes expected_time_to_train_s \
           p90_time_to_train_s cost_total; do
    want=$(sed -n "s/^    \"$key\":  \\(.*\\),\$/\\1/p" "$tmp/emit.out" | head -1)
    got=$(sed -n "s/^  \"$key\":  \\(.*\\),\$/\\1/p" "$tmp/emitted.out" | head -1)
    [ -n "$want" ] && [ "$want" = "$got" ] || fail "emitted job: $key $got, the sweep's best $want"
done
run emit_run run "$job" --emit job "$tmp/job-set.json" --set parallel.tp=4 --set parallel.pp=16 --format json
run emit_run2 run "$tmp/job-set.json" --format json
sed 's/job-set.json/gpt3-175b-a100.json/' "$tmp/emit_run2.out" | sed "s|$tmp/gpt3|$ROOT/configs/gpt3|" >"$tmp/emit_run2.norm"
cmp -s "$tmp/emit_run.out" "$tmp/emit_run2.norm" || fail "run --emit job: running the emitted file gives another answer"
# A model named by a path relative to the job: the emitted job, elsewhere, still finds it.
mkdir -p "$tmp/a" "$tmp/b"
cp "$ROOT/models/gpt3-175b.json" "$tmp/mymodel.json"
sed 's|"model": "gpt3-175b"|"model": "../mymodel.json"|' "$job" >"$tmp/a/job.json"
run emit_rel run "$tmp/a/job.json" --format json --emit job "$tmp/b/job.json"
expect_rc emit_rel 0
run emit_rel2 run "$tmp/b/job.json" --format json
expect_rc emit_rel2 0
expect_in "$tmp/b/job.json" "\"$tmp/mymodel.json\"" "the emitted job names the model by its absolute path"
run emit_bad run "$job" --emit job /nonexistent-dir/x.json
expect_rc emit_bad 2

# --- --emit megatron: real Megatron-LM argument names ---------------------------------------
names=$DATA/megatron-args.txt
check_megatron() {     # NAME: every --flag of $tmp/NAME.out is a Megatron-LM argument
    local n=0
    for flag in $(grep -v '^#' "$tmp/$1.out" | tr ' ' '\n' | grep '^--'); do
        n=$((n + 1))
        grep -qxF -- "$flag" "$names" || fail "$1: $flag is not a Megatron-LM argument"
    done
    [ "$n" -ge 10 ] || fail "$1: only $n arguments"
}
run mg run "$job" --emit megatron
expect_rc mg 0
check_megatron mg
for want in "--tensor-model-parallel-size 8" "--pipeline-model-parallel-size 8" \
            "--num-layers-per-virtual-pipeline-stage 4" "--sequence-parallel" \
            "--recompute-granularity selective" "--use-distributed-optimizer" \
            "--micro-batch-size 1" "--global-batch-size 1536" "--seq-length 2048" "--bf16" \
            "--num-layers 96" "--hidden-size 12288" "--num-attention-heads 96"; do
    expect_in "$tmp/mg.out" "$want" "megatron args of configs/gpt3-175b-a100.json"
done
run mg_full run "$job" --emit megatron --set parallel.recompute=full --set parallel.zero=0 \
    --set parallel.schedule=1f1b --set parallel.virtual_stages=1 --set precision=fp8 \
    --set system=dgx-h100
expect_rc mg_full 0
check_megatron mg_full
expect_in "$tmp/mg_full.out" "--recompute-granularity full --recompute-method uniform --recompute-num-layers 1" "full recomputation"
expect_in "$tmp/mg_full.out" "--fp8-format hybrid" "fp8"
grep -qF -- "--use-distributed-optimizer" "$tmp/mg_full.out" && fail "zero 0 emits --use-distributed-optimizer"
run mg_nemotron run "$ROOT/configs/validation/nemo-b200-nemotron4-15b-64gpu.json" --emit megatron
expect_rc mg_nemotron 0
check_megatron mg_nemotron
expect_in "$tmp/mg_nemotron.out" "--squared-relu" "a squared-ReLU model (Nemotron-4) emits --squared-relu"
grep -qF -- "--swiglu" "$tmp/mg_nemotron.out" && fail "a squared-ReLU model emits --swiglu"
run mg_sweep sweep "$small" --no-progress --emit megatron
expect_rc mg_sweep 0
check_megatron mg_sweep
expect_in "$tmp/mg_sweep.out" "--micro-batch-size 4 --global-batch-size 512" "megatron args of the sweep's best"
# An MoE job adds the expert-parallel sizes (Megatron-Core MoE parallel folding).
run mg_moe run "$ROOT/configs/mixtral-8x7b-h100.json" --emit megatron --set parallel.ep=4
expect_rc mg_moe 0
check_megatron mg_moe
expect_in "$tmp/mg_moe.out" "--expert-model-parallel-size 4 --expert-tensor-parallel-size 1" "MoE expert parallel sizes"
grep -qF -- "--expert-model-parallel-size" "$tmp/mg.out" && fail "a dense job emits --expert-model-parallel-size"
# The list is the argument set of a Megatron-LM release (its header cites it).
expect_in "$names" "core_v0.19.0" "the Megatron-LM release the names come from"

finish
