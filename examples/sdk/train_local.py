#!/usr/bin/env python3
"""Linear regression with JAX on 4 processes, launched from Python through the jaxset SDK.

The training function is an ordinary ``def``: TrainerClient ships its source to every process
(``python -c``), jaxset starts 4 processes with the JAX variables set, and each process calls
``jax.distributed.initialize()``, fits its own shard of the data and averages the gradients of
all processes with ``jax.lax.psum``.  Process 0 prints the loss as it falls; this script follows
its log and checks that the job completed.  Without JAX it says SKIPPED and exits 0.

    PYTHONPATH=python JAXSET_BIN=build/jaxset python3 examples/sdk/train_local.py
"""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
try:
    import jaxset  # noqa: F401  (installed with pip install ./python)
except ImportError:  # the source tree
    sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

from jaxset import CustomTrainer, LocalBackendConfig, TrainerClient  # noqa: E402


def train(steps: int = 200, lr: float = 0.1, samples: int = 256, features: int = 8):
    import functools
    import os

    import jax
    import jax.numpy as jnp

    try:  # CPU collectives across processes
        jax.config.update("jax_cpu_collectives_implementation", "gloo")
    except Exception:
        pass
    jax.distributed.initialize(coordinator_address=os.environ["JAX_COORDINATOR_ADDRESS"],
                               num_processes=int(os.environ["JAX_NUM_PROCESSES"]),
                               process_id=int(os.environ["JAX_PROCESS_ID"]))
    rank, devices = jax.process_index(), jax.local_device_count()

    # Every process draws its own shard of y = X w + b + noise, with the same true w and b.
    true_w = jnp.arange(1.0, features + 1.0) / features
    true_b = 0.5
    kx, kn = jax.random.split(jax.random.PRNGKey(1000 + rank))
    x = jax.random.normal(kx, (devices, samples, features))
    y = x @ true_w + true_b + 0.01 * jax.random.normal(kn, (devices, samples))

    def loss_fn(params, xs, ys):
        w, b = params
        return jnp.mean((xs @ w + b - ys) ** 2)

    @functools.partial(jax.pmap, axis_name="procs")
    def step(params, xs, ys):
        loss, grads = jax.value_and_grad(loss_fn)(params, xs, ys)
        n = jax.lax.psum(1, "procs")  # devices across every process
        grads = jax.tree_util.tree_map(lambda g: jax.lax.psum(g, "procs") / n, grads)
        params = jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)
        return params, jax.lax.psum(loss, "procs") / n

    params = (jnp.zeros((devices, features)), jnp.zeros((devices,)))
    first = None
    for i in range(steps):
        params, loss = step(params, x, y)
        value = float(loss[0])
        first = value if first is None else first
        if rank == 0 and (i % 20 == 0 or i == steps - 1):
            print(f"step {i:4d}  loss {value:.6f}", flush=True)
    if rank == 0:
        w = params[0][0]
        print(f"{jax.process_count()} processes, {jax.device_count()} devices: loss "
              f"{first:.4f} -> {value:.6f}; |w - w_true| = "
              f"{float(jnp.linalg.norm(w - true_w)):.4f}", flush=True)
    jax.distributed.shutdown()
    if not value < first / 100:
        raise SystemExit(f"the loss did not fall enough: {first} -> {value}")


def main():
    if importlib.util.find_spec("jax") is None:
        print("train_local: JAX is not installed here: SKIPPED (pip install jax to run it)")
        return 0
    client = TrainerClient(backend_config=LocalBackendConfig(python=sys.executable))
    name = client.train(
        runtime=client.get_runtime("jax-distributed"),
        trainer=CustomTrainer(func=train, func_args={"steps": 200, "lr": 0.1}, num_nodes=4,
                              env={"JAX_PLATFORMS": "cpu"}))
    print(f"TrainJob {name}: {client.get_job(name).status}")
    for line in client.get_job_logs(name, step="node-0", follow=True):
        print(f"[node-0] {line}")
    try:
        job = client.wait_for_job_status(name, timeout=600, polling_interval=0.5)
    except RuntimeError as e:
        print(f"train_local: {e}")
        for step in client.get_job(name).steps:
            print(f"  {step.name}: {step.status}")
            for line in list(client.get_job_logs(name, step=step.name))[-5:]:
                print(f"    {line}")
        return 1
    print(f"TrainJob {name}: {job.status}, steps: "
          + ", ".join(f"{s.name}={s.status}" for s in job.steps))
    client.delete_job(name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
