#!/usr/bin/env python3
"""A real JAX multi-process job: jax.distributed.initialize() from the variables the launcher
exports, then a psum across every process's devices.  Exits 0 only when the sum is right.

When JAX is not installed the script says so and exits 0 without doing anything, so the
example can sit in a test suite on machines without JAX."""
import os
import sys

try:
    import jax
    import jax.numpy as jnp
except ImportError:
    print("jax-psum: JAX is not installed here: SKIPPED (pip install jax to run this example)")
    sys.exit(0)


def main():
    n = int(os.environ["JAX_NUM_PROCESSES"])
    pid = int(os.environ["JAX_PROCESS_ID"])
    if jax.config.jax_platforms in (None, "", "cpu") or os.environ.get("JAX_PLATFORMS") == "cpu":
        jax.config.update("jax_cpu_collectives_implementation", "gloo")
    jax.distributed.initialize(coordinator_address=os.environ["JAX_COORDINATOR_ADDRESS"],
                               num_processes=n, process_id=pid)
    local = jax.local_device_count()
    x = jnp.full((local,), float(pid + 1))
    total = jax.pmap(lambda v: jax.lax.psum(v, "i"), axis_name="i")(x)
    got = float(total[0])
    # every device of process p contributes p + 1
    want = float(local * n * (n + 1) // 2)
    print(f"process {jax.process_index()}/{jax.process_count()} on {jax.devices()[0].platform}: "
          f"{jax.device_count()} devices, psum = {got} (expected {want})", flush=True)
    jax.distributed.shutdown()
    return 0 if got == want else 1


if __name__ == "__main__":
    sys.exit(main())
