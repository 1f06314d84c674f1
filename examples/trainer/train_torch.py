#!/usr/bin/env python3
"""A PyTorch trainer that runs as every replica of a distributed trial.

It needs PyTorch (any recent version; not installed by Vernier's scripts)
and uses only what `vernier serve` sets for each replica:

  * `CUDA_VISIBLE_DEVICES`: a replica granted a GPU trains on it, one
    granted none (an empty value) trains on the CPU;
  * `MASTER_ADDR`, `MASTER_PORT`, `WORLD_SIZE` and `RANK`: with more than
    one replica, `torch.distributed` (the gloo backend, so that GPU and CPU
    replicas can be mixed) averages the gradients of every replica's shard
    each step;
  * the hyperparameters as `--learning_rate=...` and `--hidden=...`, and
    `--job-dir`.

The master (rank 0) prints `step=N mse=...`, the objective that
examples/hptuning_torch.yaml tunes. Every replica writes the device it
trained on and the variables it saw to JOB_DIR/rankN.json.
"""

import argparse
import json
import os

import torch
import torch.distributed as dist

FEATURES = 32
EXAMPLES = 4096


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learning_rate", type=float, default=0.01)
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--job-dir", required=True)
    args = parser.parse_args()

    world = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    gpus = os.environ.get("CUDA_VISIBLE_DEVICES", "")
    device = torch.device("cuda" if gpus and torch.cuda.is_available() else "cpu")
    seen = {name: os.environ.get(name) for name in
            ["CUDA_VISIBLE_DEVICES", "RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"]}
    seen["device"] = str(device)
    seen["gpu"] = torch.cuda.get_device_name(0) if device.type == "cuda" else None
    os.makedirs(args.job_dir, exist_ok=True)
    with open(os.path.join(args.job_dir, f"rank{rank}.json"), "w") as out:
        json.dump(seen, out)

    if world > 1:
        dist.init_process_group("gloo", rank=rank, world_size=world)
    # The same data on every replica (one seed); each trains on its shard.
    torch.manual_seed(0)
    inputs = torch.randn(EXAMPLES, FEATURES)
    targets = torch.sin(inputs @ torch.randn(FEATURES, 1))
    shard = slice(rank * EXAMPLES // world, (rank + 1) * EXAMPLES // world)
    inputs, targets = inputs[shard].to(device), targets[shard].to(device)
    model = torch.nn.Sequential(torch.nn.Linear(FEATURES, args.hidden), torch.nn.ReLU(),
                                torch.nn.Linear(args.hidden, 1)).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.learning_rate)
    for step in range(1, args.steps + 1):
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(inputs), targets)
        loss.backward()
        if world > 1:
            for parameter in model.parameters():
                gradient = parameter.grad.cpu()
                dist.all_reduce(gradient)
                parameter.grad.copy_(gradient / world)
        optimizer.step()
        if rank == 0 and step % 20 == 0:
            print(f"step={step} mse={loss.item():.6f}", flush=True)
    if world > 1:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
