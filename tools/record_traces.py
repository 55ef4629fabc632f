#!/usr/bin/env python3
"""record_traces.py: record real PyTorch profiler (Kineto) traces of a small training job.

Needs PyTorch and a CUDA GPU. Each rank trains a small pre-LN transformer language model with
DDP and AdamW and is profiled with torch.profiler (CPU and CUDA activities, record_shapes,
profile_memory, with_stack, a schedule of 1 wait + 1 warm-up + 2 active steps), then writes
OUTDIR/rank<R>.pt.trace.json.gz.

    python3 tools/record_traces.py OUTDIR --world 2 --backend nccl
    python3 tools/record_traces.py OUTDIR --world 2 --backend gloo   # ranks may share one GPU

NCCL refuses two ranks on one GPU; gloo does not (its all-reduce then runs through the host).
"""
import argparse
import gzip
import os
import shutil
import socket
import sys


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def build_model(torch, vocab, width, layers, heads):
    nn = torch.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1 = nn.LayerNorm(width)
            self.attn = nn.MultiheadAttention(width, heads, batch_first=True)
            self.ln2 = nn.LayerNorm(width)
            self.mlp = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width))

        def forward(self, x, mask):
            h = self.ln1(x)
            a, _ = self.attn(h, h, h, attn_mask=mask, need_weights=False)
            x = x + a
            return x + self.mlp(self.ln2(x))

    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(vocab, width)
            self.blocks = nn.ModuleList(Block() for _ in range(layers))
            self.ln = nn.LayerNorm(width)
            self.head = nn.Linear(width, vocab)

        def forward(self, tokens):
            n = tokens.shape[1]
            mask = torch.triu(torch.full((n, n), float("-inf"), device=tokens.device), 1)
            x = self.emb(tokens)
            for b in self.blocks:
                x = b(x, mask)
            return self.head(self.ln(x))

    return LM()


def run_rank(rank, args, port):
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP
    from torch.profiler import ProfilerActivity, profile, schedule

    dev = torch.device("cuda", rank % torch.cuda.device_count())
    torch.cuda.set_device(dev)
    dist.init_process_group(args.backend, init_method="tcp://127.0.0.1:%d" % port, rank=rank,
                            world_size=args.world)
    torch.manual_seed(rank)
    model = build_model(torch, args.vocab, args.width, args.layers, args.heads).to(dev)
    model = DDP(model, device_ids=[dev.index])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    lossf = torch.nn.CrossEntropyLoss()
    out = os.path.join(args.outdir, "rank%d.pt.trace.json" % rank)

    def write(prof):
        prof.export_chrome_trace(out)

    steps = args.wait + args.warmup + args.active
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True,
                 profile_memory=True, with_stack=True,
                 schedule=schedule(wait=args.wait, warmup=args.warmup, active=args.active, repeat=1),
                 on_trace_ready=write) as prof:
        for _ in range(steps):
            tokens = torch.randint(0, args.vocab, (args.batch, args.seq + 1), pin_memory=True)
            tokens = tokens.to(dev, non_blocking=True)
            logits = model(tokens[:, :-1])
            loss = lossf(logits.reshape(-1, args.vocab), tokens[:, 1:].reshape(-1))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            dist.all_reduce(loss.detach())  # a second, small collective
            print("rank %d loss %.4f" % (rank, loss.item()), flush=True)
            prof.step()
    torch.cuda.synchronize()
    dist.barrier()
    dist.destroy_process_group()
    with open(out, "rb") as f, gzip.open(out + ".gz", "wb", compresslevel=9) as g:
        shutil.copyfileobj(f, g)
    os.remove(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir")
    ap.add_argument("--world", type=int, default=2)
    ap.add_argument("--backend", default="nccl")
    ap.add_argument("--vocab", type=int, default=8192)
    ap.add_argument("--width", type=int, default=512)
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--seq", type=int, default=512)
    ap.add_argument("--wait", type=int, default=1)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--active", type=int, default=2)
    args = ap.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    import torch.multiprocessing as mp
    mp.spawn(run_rank, args=(args, free_port()), nprocs=args.world, join=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
