"""The server's services by concern, each over the store and made once per app by
``hub.Hub``: the games held in this process (``games``), what is pushed to open pages
(``pushes``), the clocks' timers (``timers``), the arenas' and tournaments' pairings
(``pairing``), the computer's thinking (``computer``) and the clients' allowances
(``allowances``). A route gets the one it needs through ``deps``."""
