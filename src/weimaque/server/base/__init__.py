"""What every part leans on: a client's budgets, the process's metrics, jobs run now and then."""
