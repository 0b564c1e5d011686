#!/usr/bin/env bash
# A build without MPI (the default) started by an MPI launcher as several processes refuses
# the sweep with exit status 2 and says how to build with MPI (each process would otherwise
# run and print the whole sweep); as the only process of a launcher it runs as usual. The
# launcher is faked by the environment Open MPI's mpirun and PMI give their processes.
# Registered only in builds without -DTS_MPI.
. "$(dirname "$0")/cli.bash" cli_no_mpi "$@"
QUICK="$ROOT/configs/quickstart-sweep.json"

OMPI_COMM_WORLD_SIZE=3 OMPI_COMM_WORLD_RANK=1 run ompi sweep "$QUICK" --no-progress --format json
expect_rc ompi 2
expect_in "$tmp/ompi.err" "built without MPI" "mpirun -np 3: the refusal"
expect_in "$tmp/ompi.err" "-DTS_MPI=ON" "mpirun -np 3: how to build with MPI"
[ ! -s "$tmp/ompi.out" ] || fail "mpirun -np 3: an answer was printed"
PMI_SIZE=2 PMI_RANK=0 run pmi sweep "$QUICK" --no-progress --format json
expect_rc pmi 2
PMIX_RANK=1 run pmix sweep "$QUICK" --no-progress --format json
expect_rc pmix 2

run plain sweep "$QUICK" --no-progress --format json
expect_rc plain 0
OMPI_COMM_WORLD_SIZE=1 OMPI_COMM_WORLD_RANK=0 run one sweep "$QUICK" --no-progress --format json
expect_rc one 0
cmp -s <(grep -v '^  "elapsed_s":' "$tmp/plain.out") <(grep -v '^  "elapsed_s":' "$tmp/one.out") ||
    fail "one launched process: another answer than a plain run"
grep -q '"simulated":' "$tmp/one.out" || fail "one launched process: no sweep answer"

finish
