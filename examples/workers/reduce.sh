# The wiring check of examples/jax-allreduce.yaml in a POSIX shell, for images without Python
# (examples/jax-allreduce-image.yaml): every process sends its JAX_PROCESS_ID + 1 to the
# coordinator, found by the JAX variables jaxset injects (its pod host name resolving as
# cluster DNS would), which sums them: the sum proves the process count and every id.
set -eu
port=$JAX_COORDINATOR_PORT
n=$JAX_NUM_PROCESSES
mine=$((JAX_PROCESS_ID + 1))
if [ "$JAX_PROCESS_ID" = 0 ]; then
    sum=$mine
    i=1
    while [ $i -lt "$n" ]; do
        v=$(nc -l -p $((port + i)))   # process i alone sends to port + i: none is lost
        sum=$((sum + v))
        i=$((i + 1))
    done
    echo "coordinator $(hostname): sum of the $n processes = $sum (expected $((n * (n + 1) / 2)))"
else
    host=${JAX_COORDINATOR_HOST:-${JAX_COORDINATOR_ADDRESS%:*}}
    to=$((port + JAX_PROCESS_ID))
    until echo "$mine" | nc "$host" "$to" 2>/dev/null; do sleep 0.1; done
    echo "process $JAX_PROCESS_ID of $n on $(hostname): sent $mine to $host:$to"
fi
