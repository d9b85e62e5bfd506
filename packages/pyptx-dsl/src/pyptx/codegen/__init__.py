"""PTX to Python transpiler: turns parsed PTX into pyptx DSL source, optionally with sugar."""
