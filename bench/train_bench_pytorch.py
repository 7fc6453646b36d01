#!/usr/bin/env python3
"""The baseline for tengen-bench-train: the same training step in PyTorch from Python.

The net mirrors lib/nn/torch/net.cpp layer for layer (b{B}c{C}: 5x5 input convolution plus a
global-input bias, pre-activation residual blocks with masked batch norm, every third block
with global pooling, the policy/pass, value, score and ownership heads), the losses mirror
lib/nn/torch/trainer.cpp (summed over the batch, row-weighted), and the optimizer is SGD with
momentum 0.9, channels_last, on random full-board 9x9 rows: the "equivalent PyTorch-in-Python
loop" of the trainer's speed bar. A benchmark only: nothing in tengen runs Python.

    python3 bench/train_bench_pytorch.py --threads 1 --runs 5 --seconds 3 [--bf16]
    python3 bench/train_bench_pytorch.py --device cuda --precision fp16 --batch-size 1024
    python3 bench/train_bench_pytorch.py --device cuda --precision fp16 --forward   # evals/s

--forward times the net's forward pass alone (eval mode, no gradients): the baseline for
tengen-bench-nn. On CUDA the inputs live on the GPU, fp16 and bf16 are autocast (fp16 training
with a GradScaler), and each timed run ends with a synchronize.
Needs Debian's python3-torch (apt-get install python3-torch) on a CPU, a CUDA torch on a GPU.
"""
import argparse
import statistics
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

EPS = 1e-4
MOMENTUM = 0.01


class MaskedBN(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(c))
        self.bias = nn.Parameter(torch.zeros(c))
        self.register_buffer("running_mean", torch.zeros(c))
        self.register_buffer("running_var", torch.ones(c))

    def forward(self, x, mask, total):
        mean = (x * mask).sum((0, 2, 3)) / total
        centered = (x - mean.view(1, -1, 1, 1)) * mask
        var = (centered * centered).sum((0, 2, 3)) / total
        with torch.no_grad():
            self.running_mean.mul_(1 - MOMENTUM).add_(mean.detach() * MOMENTUM)
            self.running_var.mul_(1 - MOMENTUM).add_(var.detach() * MOMENTUM)
        inv = torch.rsqrt(var + EPS)
        return centered * (inv * self.weight).view(1, -1, 1, 1) + self.bias.view(1, -1, 1, 1)


def pool(x, count, mask):
    mean = x.sum((2, 3)) / count
    size = (count.sqrt() - 14.0) / 10.0
    mx = (x + (mask - 1)).amax((2, 3))
    return torch.cat([mean, mean * size, mx], 1)


def value_pool(x, count):
    mean = x.sum((2, 3)) / count
    c = (count.sqrt() - 14.0) / 10.0
    return torch.cat([mean, mean * c, mean * (c * c - 0.1)], 1)


class Block(nn.Module):
    def __init__(self, c, g):
        super().__init__()
        mid = c - g
        self.bn1 = MaskedBN(c)
        self.conv1 = nn.Conv2d(c, mid, 3, padding=1, bias=False)
        self.g = g
        if g:
            self.conv_g = nn.Conv2d(c, g, 3, padding=1, bias=False)
            self.bn_g = MaskedBN(g)
            self.linear_g = nn.Linear(3 * g, mid)
        self.bn2 = MaskedBN(mid)
        self.conv2 = nn.Conv2d(mid, c, 3, padding=1, bias=False)

    def forward(self, x, mask, count, total):
        h = F.relu(self.bn1(x, mask, total)) * mask
        r = self.conv1(h)
        if self.g:
            g = F.relu(self.bn_g(self.conv_g(h), mask, total)) * mask
            r = r + self.linear_g(pool(g, count, mask)).unsqueeze(2).unsqueeze(3)
        r = F.relu(self.bn2(r, mask, total)) * mask
        return x + self.conv2(r)


class Net(nn.Module):
    def __init__(self, blocks, c, spatial=12, glob=8):
        super().__init__()
        h = c // 3
        self.conv_spatial = nn.Conv2d(spatial, c, 5, padding=2, bias=False)
        self.linear_global = nn.Linear(glob, c, bias=False)
        self.blocks = nn.ModuleList(
            Block(c, c // 3 if (i % 3 == 2 or (blocks < 3 and i == blocks - 1)) else 0)
            for i in range(blocks))
        self.bn_trunk = MaskedBN(c)
        self.policy_conv = nn.Conv2d(c, h, 1, bias=False)
        self.policy_gconv = nn.Conv2d(c, h, 1, bias=False)
        self.policy_gbn = MaskedBN(h)
        self.policy_glinear = nn.Linear(3 * h, h)
        self.policy_bn = MaskedBN(h)
        self.policy_out = nn.Conv2d(h, 1, 1, bias=False)
        self.pass_linear = nn.Linear(3 * h, 1)
        self.value_conv = nn.Conv2d(c, h, 1, bias=False)
        self.value_bn = MaskedBN(h)
        self.value_hidden = nn.Linear(3 * h, 2 * h)
        self.value_out = nn.Linear(2 * h, 3)
        self.score_out = nn.Linear(2 * h, 1)
        self.ownership_out = nn.Conv2d(h, 1, 1, bias=False)

    def forward(self, spatial, glob):
        n = spatial.shape[0]
        mask = spatial[:, 0:1]
        count = mask.sum((2, 3))
        total = count.sum()
        x = self.conv_spatial(spatial) + self.linear_global(glob).unsqueeze(2).unsqueeze(3)
        for b in self.blocks:
            x = b(x, mask, count, total)
        x = F.relu(self.bn_trunk(x, mask, total)) * mask
        g = F.relu(self.policy_gbn(self.policy_gconv(x), mask, total)) * mask
        pooled = pool(g, count, mask)
        p = self.policy_conv(x) + self.policy_glinear(pooled).unsqueeze(2).unsqueeze(3)
        p = F.relu(self.policy_bn(p, mask, total)) * mask
        flat_mask = mask.reshape(n, -1)
        logits = self.policy_out(p).reshape(n, -1) * flat_mask + (1 - flat_mask) * -5000.0
        policy = torch.cat([logits, self.pass_linear(pooled)], 1)
        v = F.relu(self.value_bn(self.value_conv(x), mask, total)) * mask
        hidden = F.relu(self.value_hidden(value_pool(v, count)))
        own = (self.ownership_out(v) * mask).reshape(n, -1)
        return policy, self.value_out(hidden), self.score_out(hidden).reshape(n), own


def losses(out, t):
    policy, value, score, own = out
    s, pt, vt, st, ot, w = t
    n = s.shape[0]
    lp = -(pt * F.log_softmax(policy.float(), 1)).sum(1)
    lv = -(vt * F.log_softmax(value.float(), 1)).sum(1) * 1.5
    err = (score.float() - st).abs()
    ls = torch.where(err < 12.0, 0.5 * err * err, 12.0 * (err - 6.0)) * (0.02 / 12.0)
    mask = s[:, 0].reshape(n, -1)
    bce = F.binary_cross_entropy_with_logits(2.0 * own.float(), (ot + 1) * 0.5, reduction="none")
    lo = (bce * mask).sum(1) / mask.sum(1) * 1.5
    return ((lp + lv + ls + lo) * w).sum()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--blocks", type=int, default=6)
    ap.add_argument("--channels", type=int, default=96)
    ap.add_argument("--pos-len", type=int, default=9)
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--bf16", action="store_true", help="same as --precision bf16")
    ap.add_argument("--precision", choices=["fp32", "bf16", "fp16"], default="fp32",
                    help="autocast dtype (fp32: off)")
    ap.add_argument("--device", default="cpu", help="cpu, cuda or cuda:N")
    ap.add_argument("--forward", action="store_true", help="time the forward pass alone")
    ap.add_argument("--cuda-graph", action="store_true",
                    help="with --forward on CUDA: replay the forward pass as one captured CUDA graph")
    a = ap.parse_args()
    if a.cuda_graph and not (a.forward and a.device.startswith("cuda")):
        ap.error("--cuda-graph needs --forward and a CUDA device")
    if a.bf16:
        a.precision = "bf16"
    device = torch.device(a.device)
    dtype = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}[a.precision]
    autocast = a.precision != "fp32"
    torch.set_num_threads(a.threads)
    torch.manual_seed(1)
    n, l = a.batch_size, a.pos_len
    area = l * l
    spatial = torch.zeros(n, 12, l, l)
    spatial[:, 0] = 1
    r = torch.randint(0, 3, (n, l, l))
    spatial[:, 1] = (r == 1).float()
    spatial[:, 2] = (r == 2).float()
    spatial = spatial.contiguous(memory_format=torch.channels_last)
    glob = torch.zeros(n, 8)
    pt = F.one_hot(torch.randint(0, area + 1, (n,)), area + 1).float()
    vt = F.one_hot(torch.randint(0, 3, (n,)), 3).float()
    st = torch.randint(-20, 21, (n,)).float()
    ot = (torch.randint(0, 3, (n, area)) - 1).float()
    w = torch.ones(n)
    spatial, glob = spatial.to(device), glob.to(device)
    t = tuple(x.to(device) for x in (spatial, pt, vt, st, ot, w))
    net = Net(a.blocks, a.channels).to(device).to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(net.parameters(), lr=1e-6, momentum=0.9)
    if hasattr(torch.amp, "GradScaler"):
        scaler = torch.amp.GradScaler(device.type, enabled=a.precision == "fp16")
    else:  # torch before 2.3 (Debian's 1.13)
        scaler = torch.cuda.amp.GradScaler(enabled=a.precision == "fp16")

    def train_step():
        opt.zero_grad()
        with torch.autocast(device.type, dtype=dtype, enabled=autocast):
            out = net(spatial, glob)
            loss = losses(out, t)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()

    def forward_step():
        # A captured graph must not reuse autocast's cached casts from outside the capture.
        with torch.inference_mode(), torch.autocast(device.type, dtype=dtype, enabled=autocast,
                                                    cache_enabled=not a.cuda_graph):
            net(spatial, glob)

    if a.forward:
        net.eval()
    step = forward_step if a.forward else train_step
    if a.cuda_graph:
        # Warm up on a side stream (as capture requires), then capture one forward pass.
        side = torch.cuda.Stream(device)
        side.wait_stream(torch.cuda.current_stream(device))
        with torch.cuda.stream(side):
            for _ in range(3):
                forward_step()
        torch.cuda.current_stream(device).wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            forward_step()
        step = graph.replay

    def sync():
        if device.type == "cuda":
            torch.cuda.synchronize(device)

    def timed(seconds):
        start = time.perf_counter()
        samples = 0
        while True:
            step()
            samples += n
            if samples // n % 8:
                continue
            sync()  # CUDA runs ahead of Python: the clock must count finished work only
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                return samples / elapsed

    timed(a.seconds / 4)
    rates = [timed(a.seconds) for _ in range(a.runs)]
    what = "forward evals/s" if a.forward else "samples/s"
    print(f"pytorch-python b{a.blocks}c{a.channels} pos_len {l} batch {n} threads {a.threads} "
          f"{a.device} {a.precision}{' cuda-graph' if a.cuda_graph else ''}: median {statistics.median(rates):.0f} {what} "
          f"over {a.runs} runs ({', '.join(f'{x:.0f}' for x in rates)})")


if __name__ == "__main__":
    main()
