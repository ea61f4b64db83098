"""
The fleet namespace: what many agents, people and approval services share.

Names here are for plugins and tools that run the gateway for a team —
tokens and their roles, configuration tiers, notifiers — rather than for
everyday use of `gateway.Gateway` (as ``trio.lowlevel`` keeps what most
users never need out of ``trio``). The broker itself (NATS JetStream) is the
``gateway_nats`` plugin's; nothing here connects to anything.
"""

from gateway._record._notifiers import (
    NOTIFY_TIMEOUT as NOTIFY_TIMEOUT,
    Notice as Notice,
    Notifier as Notifier,
    load_notifier as load_notifier,
)
from gateway._settings._tiers import (
    MANAGED_FILE as MANAGED_FILE,
    PROJECT_FILE as PROJECT_FILE,
    STRICTEST as STRICTEST,
    EffectiveConfig as EffectiveConfig,
    Tier as Tier,
    effective_config as effective_config,
    find_tiers as find_tiers,
    managed_file_problem as managed_file_problem,
    merge_tiers as merge_tiers,
    read_tier as read_tier,
    tier_of as tier_of,
)
from gateway._settings._tokens import (
    OWNER as OWNER,
    ROLE_PERMISSIONS as ROLE_PERMISSIONS,
    ROLES as ROLES,
    Identity as Identity,
    Permission as Permission,
    Role as Role,
    TokenBook as TokenBook,
    TokenError as TokenError,
    TokenFile as TokenFile,
    TokenRecord as TokenRecord,
    check_token_name as check_token_name,
    default_tokens_file as default_tokens_file,
    follow_token_file as follow_token_file,
    make_token as make_token,
    token_digest as token_digest,
    write_private as write_private,
)

__all__ = [
    "MANAGED_FILE",
    "NOTIFY_TIMEOUT",
    "OWNER",
    "PROJECT_FILE",
    "ROLES",
    "ROLE_PERMISSIONS",
    "STRICTEST",
    "EffectiveConfig",
    "Identity",
    "Notice",
    "Notifier",
    "Permission",
    "Role",
    "Tier",
    "TokenBook",
    "TokenError",
    "TokenFile",
    "TokenRecord",
    "check_token_name",
    "default_tokens_file",
    "effective_config",
    "find_tiers",
    "follow_token_file",
    "load_notifier",
    "make_token",
    "managed_file_problem",
    "merge_tiers",
    "read_tier",
    "tier_of",
    "token_digest",
    "write_private",
]
