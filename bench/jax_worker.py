#!/usr/bin/env python3
"""bench_jax.py's worker: a real JAX process.  It calls jax.distributed.initialize() with the
variables its launcher exports, then sends one datagram "<process id> <attempt> <pid>" to the
harness's AF_UNIX socket $BENCH_SOCK and waits.  SIGUSR1 makes it exit(1): that is how the
harness kills one process of the gang.

Launchers and what the worker reads:
  jaxset, the floor   JAX_COORDINATOR_ADDRESS, JAX_NUM_PROCESSES, JAX_PROCESS_ID; the attempt
                      in $ATTEMPT (under jaxset a fieldRef to the restart-attempt label)
  torchrun            MASTER_ADDR and the harness's $BENCH_JAX_PORT (the coordinator's port),
                      WORLD_SIZE, RANK; the attempt in $TORCHELASTIC_RESTART_COUNT

After initialize() JAX takes SIGTERM as a preemption notice and keeps running, as a training
process does: a launcher's SIGTERM does not stop it, only SIGKILL after the grace period."""
import os
import signal
import socket
import sys


def coordinates():
    env = os.environ
    if "JAX_COORDINATOR_ADDRESS" in env:
        return (env["JAX_COORDINATOR_ADDRESS"], int(env["JAX_NUM_PROCESSES"]),
                int(env["JAX_PROCESS_ID"]), env.get("ATTEMPT", "0"))
    return (f"{env['MASTER_ADDR']}:{env['BENCH_JAX_PORT']}", int(env["WORLD_SIZE"]), int(env["RANK"]),
            env.get("TORCHELASTIC_RESTART_COUNT", "0"))


def main():
    signal.signal(signal.SIGUSR1, lambda *_: os._exit(1))
    coord, n, pid, attempt = coordinates()
    import jax
    jax.distributed.initialize(coordinator_address=coord, num_processes=n, process_id=pid)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.sendto(f"{pid} {attempt} {os.getpid()}".encode(), os.environ["BENCH_SOCK"])
    while True:
        signal.pause()


if __name__ == "__main__":
    sys.exit(main())
