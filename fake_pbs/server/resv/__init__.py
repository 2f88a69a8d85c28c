"""Advance, standing and ASAP reservations on the server: their records and queues
(``records``), the scheduler's confirmation (``confirm``), their windows (``timeline``) and
hook events (``hooks``).  The requests are in ``fake_pbs/server/handlers/resv.py``."""
