"""Biriba for game-AI research: PettingZoo, Gymnasium and OpenSpiel on the one engine (``docs/envs.md``).

``from biriba.envs import biriba_v0`` gives the PettingZoo environment;
importing this package registers the Gymnasium one as
``biriba/Biriba-v0``; ``import biriba.envs.openspiel`` registers the game
with OpenSpiel as ``python_biriba``.  They need the ``rl`` extra
(``pip install 'biriba[rl]'``); the engine and the bots import none of this.
"""

from __future__ import annotations

try:
    import gymnasium

    from . import biriba_v0
    from .encoding import ACTIONS, TurnSteps, describe
    from .observation import LAYOUT, SIZE, observe
except ModuleNotFoundError as exc:  # the research interfaces' packages come with the rl extra
    raise ModuleNotFoundError(
        f"biriba.envs needs biriba's rl extra ({exc.name} is not installed): pip install 'biriba[rl]'", name=exc.name
    ) from exc

GYMNASIUM_ID = "biriba/Biriba-v0"
if GYMNASIUM_ID not in gymnasium.registry:
    # no wrappers: Gymnasium's (OrderEnforcing, the passive checker) hide env.action_masks(), which MaskablePPO
    # calls; tests/test_envs_gymnasium.py runs check_env on the environment instead
    gymnasium.register(
        GYMNASIUM_ID,
        entry_point="biriba.envs.gymnasium_env:BiribaEnv",
        order_enforce=False,
        disable_env_checker=True,
    )

__all__ = ["ACTIONS", "GYMNASIUM_ID", "LAYOUT", "SIZE", "TurnSteps", "biriba_v0", "describe", "observe"]
