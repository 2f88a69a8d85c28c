"""PBS's ``set_vnode_state`` server log line when a job makes a vnode job-busy or free again.

pbs_server keeps a vnode's state as bits (pbs_nodes.h: ``INUSE_JOB`` 0x10 is job-busy,
``INUSE_JOBEXCL`` 0x40 job-exclusive ...) and changes them with an operation: OR in the bits a
job sets, AND with the complement of the bits its end clears.  Each change of state is logged
(node_manager.c set_vnode_state; event 0x0100 in 23.06.06, class ``Node``, object the vnode) and
stamps ``last_state_change_time`` (transcript g11):

``set_vnode_state;vnode.state=0x10 vnode_o.state=0x0 vnode.last_state_change_time=T
vnode_o.last_state_change_time=T0 state_bits=0x10 state_bit_op_type_str=Nd_State_Or
state_bit_op_type_enum=1``
"""
from typing import Any, Dict

from fake_pbs.server.app import ServerApp
from fake_pbs.server.logs import DEBUG2, NODE

# INUSE_* bits of the state words pbsnodes shows.
STATE_BITS = {
    "free": 0x0, "offline": 0x1, "down": 0x2, "job-busy": 0x10, "stale": 0x20,
    "job-exclusive": 0x40, "busy": 0x80, "state-unknown": 0x100, "provisioning": 0x800,
    "wait-provisioning": 0x1000, "resv-exclusive": 0x2000, "maintenance": 0x20000,
    "sleep": 0x40000,
}
_JOB_BITS = STATE_BITS["job-busy"] | STATE_BITS["job-exclusive"]
_MASK64 = (1 << 64) - 1
# enum node_state_op
ND_STATE_OR = 1
ND_STATE_AND = 2


def state_bits(state: str) -> int:
    """The INUSE_* word of a state string such as ``job-busy`` or ``down,offline``."""
    bits = 0
    for word in state.split(","):
        bits |= STATE_BITS.get(word.strip(), 0)
    return bits


def change_line(new: int, old: int, now: int, then: int) -> str:
    """The message for a change made by a job: OR its bits in, or AND them out."""
    if new & ~old:
        operand, op, op_name = new & ~old, ND_STATE_OR, "Nd_State_Or"
    else:
        operand, op, op_name = ~_JOB_BITS & _MASK64, ND_STATE_AND, "Nd_State_And"
    return ("set_vnode_state;vnode.state=0x%x vnode_o.state=0x%x "
            "vnode.last_state_change_time=%d vnode_o.last_state_change_time=%d "
            "state_bits=0x%x state_bit_op_type_str=%s state_bit_op_type_enum=%d"
            % (new, old, now, then, operand, op_name, op))


def observer(app: ServerApp) -> Any:
    """The callback for ``fake_pbs.server.vnodeslots.state_observer`` in this server."""
    def changed(name: str, node: Dict[str, Any], old_state: str) -> None:
        new, old = state_bits(str(node.get("state", "free"))), state_bits(old_state)
        if new == old:
            return
        now = app.now()
        try:
            then = int(node.get("last_state_change_time", now))
        except ValueError:
            then = now
        node["last_state_change_time"] = str(now)
        app.log.write(DEBUG2, NODE, name, change_line(new, old, now, then))
    return changed
