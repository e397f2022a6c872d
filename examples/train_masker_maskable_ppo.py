"""Train a masked policy on Masker (2 players) against the random bot, and measure its win rate.

MaskablePPO (sb3-contrib) on the Gymnasium environment ``masques.rl.gym_env``: the agent takes seat
0, the random bot seat 1, and who moves first is drawn by the game as usual.  The win rate is
measured over the same evaluation games (fixed seeds) before and after training; an untrained
masked policy plays about like the random bot, so "before" is about 50%.

Training only, the reward is shaped (potential-based, so the best policies stay the same; see
OwnCrossesShaping): losing crosses of one's own colour costs at once rather than only through the
final result.  The environment itself, and the win rates printed, use the game's result alone.
Sixteen games run side by side so the policy network evaluates one batch per step.

Needs the extra ``masques[rl-train]`` (CPU torch, stable-baselines3, sb3-contrib):

    pip install torch==2.13.0 && pip install -e '.[rl-train]'
    python examples/train_masker_maskable_ppo.py --minutes 5 --out docs/rl/masker-maskable-ppo.txt
"""

from __future__ import annotations

import argparse
import platform
import time
from pathlib import Path
from typing import Any

import gymnasium
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import DummyVecEnv

from masques.rl import gym_env

EVAL_SEED = 1_000_000
"""The evaluation games are the games of seeds 1,000,000 onwards (training games are drawn at random)."""


class Log:
    """Print lines and keep them for ``--out``."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def __call__(self, line: str) -> None:
        print(line, flush=True)
        self.lines.append(line)


def win_rate(model: MaskablePPO, games: int) -> float:
    """Share of ``games`` evaluation games the policy wins (shared wins count their share)."""
    env = gym_env("masker", seat=0, opponents="random", players=2)
    total = 0.0
    for k in range(games):
        obs, info = env.reset(seed=EVAL_SEED + k)
        done = False
        reward = 0.0
        while not done:
            action, _ = model.predict(obs, action_masks=info["action_mask"].astype(bool), deterministic=True)
            obs, reward, done, _, info = env.step(int(action))
        total += reward
    return total / games


class OwnCrossesShaping(gymnasium.Wrapper[Any, Any, Any, Any]):
    """Potential-based shaping (Ng, Harada and Russell 1999) for training only: the potential is
    ``weight`` x the share of the agent's own colour still on the board, read from its observation
    vector, and 0 at the end; so the shaped game has the same best policies, and a capture of one's
    own colour costs at once instead of only in the final result."""

    def __init__(self, env: gymnasium.Env[Any, Any], weight: float) -> None:
        super().__init__(env)
        self.weight = weight
        self.index = env.unwrapped.encoder.layout.block("on_board").start  # type: ignore[attr-defined]
        self.potential = 0.0

    def reset(self, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        obs, info = self.env.reset(**kwargs)
        self.potential = self.weight * float(obs[self.index])
        return obs, info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        potential = 0.0 if terminated else self.weight * float(obs[self.index])
        shaped = float(reward) + potential - self.potential
        self.potential = potential
        info["game_reward"] = reward
        return obs, shaped, terminated, truncated, info

    def action_masks(self) -> Any:
        return self.env.unwrapped.action_masks()  # type: ignore[attr-defined]


class Progress(BaseCallback):
    """Stop after the time budget; every ``every`` steps print time, steps and the recent win rate."""

    def __init__(self, seconds: float, every: int, log: Log) -> None:
        super().__init__()
        self.seconds = seconds
        self.every = every
        self.log = log
        self.start = 0.0
        self.results: list[float] = []
        self.next_report = every

    def _on_training_start(self) -> None:
        self.start = time.perf_counter()

    def elapsed(self) -> float:
        return time.perf_counter() - self.start if self.start else 0.0

    def _on_step(self) -> bool:
        infos: list[dict[str, Any]] = self.locals["infos"]
        dones = self.locals["dones"]
        rewards = self.locals["rewards"]
        for done, reward, info in zip(dones, rewards, infos, strict=True):
            if done:
                self.results.append(float(info.get("game_reward", reward)))
        elapsed = time.perf_counter() - self.start
        if self.num_timesteps >= self.next_report:
            self.next_report += self.every
            recent = self.results[-500:]
            rate = sum(recent) / len(recent) if recent else float("nan")
            self.log(
                f"  {elapsed:6.0f} s  {self.num_timesteps:8d} steps  {len(self.results):6d} games  "
                f"win rate (last {len(recent)} training games) {rate:.1%}"
            )
        return elapsed < self.seconds


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--minutes", type=float, default=5.0, help="training time budget (default 5)")
    parser.add_argument("--eval-games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--shaping", type=float, default=0.5, help="weight of the shaping (0: none)")
    parser.add_argument("--envs", type=int, default=16, help="games played side by side (one batch)")
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--steps", type=int, default=128, help="steps per game slot between updates")
    parser.add_argument("--batch", type=int, default=512)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--width", type=int, default=128)
    parser.add_argument("--out", type=Path, help="also write the output to this file")
    args = parser.parse_args()

    torch.set_num_threads(1)  # one core
    log = Log()
    log("Masker, 2 players: MaskablePPO (seat 0) against the random bot (seat 1)")
    log(
        f"python {platform.python_version()}, torch {torch.__version__}, one thread; "
        f"training budget {args.minutes:g} min; {args.eval_games} evaluation games"
    )
    log(
        f"{args.envs} games side by side, lr {args.lr:g} falling to {args.lr / 10:g}, "
        f"{args.steps} steps per game between updates, "
        f"batch {args.batch}, {args.epochs} epochs, MLP {args.width}x{args.width}, "
        f"shaping weight {args.shaping:g}"
    )

    def make() -> gymnasium.Env[Any, Any]:
        env = gym_env("masker", seat=0, opponents="random", players=2)
        return OwnCrossesShaping(env, args.shaping) if args.shaping else env

    envs = DummyVecEnv([make for _ in range(args.envs)])
    progress = Progress(args.minutes * 60, 20_000, log)

    def learning_rate(_: float) -> float:
        """Down from --lr to a tenth of it as the time budget runs out (a steadier final policy)."""
        return args.lr * (1.0 - 0.9 * min(1.0, progress.elapsed() / progress.seconds))

    model = MaskablePPO(
        "MlpPolicy",
        envs,
        learning_rate=learning_rate,
        n_steps=args.steps,
        batch_size=args.batch,
        n_epochs=args.epochs,
        gamma=1.0,
        gae_lambda=0.95,
        ent_coef=0.01,
        policy_kwargs={"net_arch": [args.width, args.width]},
        seed=args.seed,
        device="cpu",
        verbose=0,
    )
    before = win_rate(model, args.eval_games)
    log(f"before training: win rate {before:.1%} over {args.eval_games} games")
    start = time.perf_counter()
    model.learn(total_timesteps=10**9, callback=progress)
    elapsed = time.perf_counter() - start
    log(f"trained {elapsed:.0f} s: {model.num_timesteps} steps, {len(progress.results)} games")
    after = win_rate(model, args.eval_games)
    log(f"after training:  win rate {after:.1%} over {args.eval_games} games")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text("\n".join(log.lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
