#!/usr/bin/env python3
"""3 MB of text from a fixed seed, for the causal benches (causal.sh and
causal_speed.sh compress it with pigz): words of a 5000-word random
vocabulary, mostly space-separated. usage: words_text.py OUT"""
import random
import sys

r = random.Random(26)
words = ["".join(r.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(r.randint(2, 10)))
         for _ in range(5000)]
out, n = [], 0
while n < 3000000:
    w = r.choice(words) + (" " if r.random() < 0.9 else "\n")
    out.append(w)
    n += len(w)
open(sys.argv[1], "w").write("".join(out)[:3000000])
