# The wiring check of examples/jax-allreduce.yaml in a POSIX shell, for images without Python
# (examples/jax-allreduce-image.yaml): every process sends its JAX_PROCESS_ID + 1 to the
# coordinator, found by the JAX variables jaxset injects (its pod host name resolving as
# cluster DNS would), which sums them: the sum proves the process count and every id.
#
# One port, the coordinator's (jaxset picked it free for the run): busybox nc serves every
# connection with this script's "handle" branch, which keeps the number under the sender's id
# and answers "ok"; a sender tries again until it reads that answer, so no number is lost,
# and a number sent twice is kept once.
set -eu
if [ "${1:-}" = handle ]; then
    read -r id v
    echo "$v" >"$REDUCE_DIR/$id"
    echo ok
    exit 0
fi
port=$JAX_COORDINATOR_PORT
n=$JAX_NUM_PROCESSES
mine=$((JAX_PROCESS_ID + 1))
if [ "$JAX_PROCESS_ID" = 0 ]; then
    REDUCE_DIR=/tmp/reduce.$$
    export REDUCE_DIR
    mkdir "$REDUCE_DIR"
    nc -ll -p "$port" -e /bin/sh "$0" handle &
    server=$!
    sum=$mine
    i=1
    while [ $i -lt "$n" ]; do
        if [ -e "$REDUCE_DIR/$i" ]; then
            sum=$((sum + $(cat "$REDUCE_DIR/$i")))
            i=$((i + 1))
        else
            kill -0 $server    # the server is gone (its port taken): fail, do not hang
            sleep 0.05
        fi
    done
    kill $server
    echo "coordinator $(hostname): sum of the $n processes = $sum (expected $((n * (n + 1) / 2)))"
else
    host=${JAX_COORDINATOR_HOST:-${JAX_COORDINATOR_ADDRESS%:*}}
    until [ "$(echo "$JAX_PROCESS_ID $mine" | nc "$host" "$port" 2>/dev/null)" = ok ]; do
        sleep 0.1
    done
    echo "process $JAX_PROCESS_ID of $n on $(hostname): sent $mine to $host:$port"
fi
