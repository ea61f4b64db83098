"""
agent-gateway: decide, before anything runs, whether an agent's proposed tool call may run.

The public surface. Everything importable from ``gateway`` is listed in
``__all__``; modules with a leading underscore are internal.

Examples:
    >>> from gateway import plan_program
    >>> plan = plan_program("cd src && grep -rn TODO .")
    >>> [c.position.program.basename for c in plan.statements[0].plan.commands]
    ['cd', 'grep']
"""

from gateway._approvers import (
    Approver as Approver,
    ApproverContext as ApproverContext,
    ReviewRequest as ReviewRequest,
)
from gateway._calls import ToolCall as ToolCall
from gateway._config import (
    GatewayConfig as GatewayConfig,
    GatewaySection as GatewaySection,
    HookSection as HookSection,
    ServeSection as ServeSection,
    ShellTool as ShellTool,
    SinkConfig as SinkConfig,
    default_config as default_config,
    default_config_bytes as default_config_bytes,
    load_config as load_config,
)
from gateway._errors import (
    ConfigError as ConfigError,
    GatewayError as GatewayError,
    PluginError as PluginError,
    PluginLoadError as PluginLoadError,
)
from gateway._events import (
    ApproverDecided as ApproverDecided,
    ApproverFailed as ApproverFailed,
    CallOutcome as CallOutcome,
    CallProposed as CallProposed,
    ChainBreak as ChainBreak,
    Event as Event,
    GatewayStarted as GatewayStarted,
    GatewayStopped as GatewayStopped,
    HoleAnswered as HoleAnswered,
    HoleQuestion as HoleQuestion,
    HoleRef as HoleRef,
    PlanReady as PlanReady,
    VerdictReached as VerdictReached,
    verify_chain as verify_chain,
)
from gateway._fragments import expand_fragment as expand_fragment
from gateway._gateway import Gateway as Gateway, GatewayStatistics as GatewayStatistics
from gateway._hosts import (
    ClaudeCodeEvent as ClaudeCodeEvent,
    claude_code_call as claude_code_call,
    claude_code_permission_response as claude_code_permission_response,
    claude_code_pre_tool_use_response as claude_code_pre_tool_use_response,
)
from gateway._launchers import LAUNCHERS as LAUNCHERS, LauncherRow as LauncherRow
from gateway._plan import (
    iter_commands as iter_commands,
    iter_effects as iter_effects,
    plan_program as plan_program,
    read_program_position as read_program_position,
)
from gateway._plans import (
    PLAN_RENDER_LIMIT as PLAN_RENDER_LIMIT,
    Blocked as Blocked,
    BlockedBody as BlockedBody,
    Complete as Complete,
    Expansion as Expansion,
    FragmentAddr as FragmentAddr,
    FragmentError as FragmentError,
    Hole as Hole,
    LauncherStep as LauncherStep,
    NestedShell as NestedShell,
    Plain as Plain,
    Plan as Plan,
    PlannedAssignment as PlannedAssignment,
    PlannedCommand as PlannedCommand,
    PlannedHeredoc as PlannedHeredoc,
    PlannedRedirect as PlannedRedirect,
    PlannedValue as PlannedValue,
    PositionRefusal as PositionRefusal,
    ProgramName as ProgramName,
    ProgramPlan as ProgramPlan,
    ProgramPosition as ProgramPosition,
    Redacted as Redacted,
    Redaction as Redaction,
    SequencePlan as SequencePlan,
    SequenceStep as SequenceStep,
    StatementPlan as StatementPlan,
)
from gateway._position import NOT_AUTO_ALLOWED as NOT_AUTO_ALLOWED
from gateway._sequence import command_sequence_plan as command_sequence_plan
from gateway._shell import ShellReading as ShellReading, read_shell as read_shell
from gateway._sinks import (
    AuditLogError as AuditLogError,
    ChainTip as ChainTip,
    Sink as Sink,
    encode_event as encode_event,
    read_audit_log as read_audit_log,
    verify_audit_log as verify_audit_log,
)
from gateway._verdicts import (
    Abstain as Abstain,
    Allow as Allow,
    Answer as Answer,
    Decline as Decline,
    Verdict as Verdict,
)

__all__ = [
    "LAUNCHERS",
    "NOT_AUTO_ALLOWED",
    "PLAN_RENDER_LIMIT",
    "Abstain",
    "Allow",
    "Answer",
    "Approver",
    "ApproverContext",
    "ApproverDecided",
    "ApproverFailed",
    "AuditLogError",
    "Blocked",
    "BlockedBody",
    "CallOutcome",
    "CallProposed",
    "ChainBreak",
    "ChainTip",
    "ClaudeCodeEvent",
    "Complete",
    "ConfigError",
    "Decline",
    "Event",
    "Expansion",
    "FragmentAddr",
    "FragmentError",
    "Gateway",
    "GatewayConfig",
    "GatewayError",
    "GatewaySection",
    "GatewayStarted",
    "GatewayStatistics",
    "GatewayStopped",
    "Hole",
    "HoleAnswered",
    "HoleQuestion",
    "HoleRef",
    "HookSection",
    "LauncherRow",
    "LauncherStep",
    "NestedShell",
    "Plain",
    "Plan",
    "PlanReady",
    "PlannedAssignment",
    "PlannedCommand",
    "PlannedHeredoc",
    "PlannedRedirect",
    "PlannedValue",
    "PluginError",
    "PluginLoadError",
    "PositionRefusal",
    "ProgramName",
    "ProgramPlan",
    "ProgramPosition",
    "Redacted",
    "Redaction",
    "ReviewRequest",
    "SequencePlan",
    "SequenceStep",
    "ServeSection",
    "ShellReading",
    "ShellTool",
    "Sink",
    "SinkConfig",
    "StatementPlan",
    "ToolCall",
    "Verdict",
    "VerdictReached",
    "claude_code_call",
    "claude_code_permission_response",
    "claude_code_pre_tool_use_response",
    "command_sequence_plan",
    "default_config",
    "default_config_bytes",
    "encode_event",
    "expand_fragment",
    "iter_commands",
    "iter_effects",
    "load_config",
    "plan_program",
    "read_audit_log",
    "read_program_position",
    "read_shell",
    "verify_audit_log",
    "verify_chain",
]
