"""A DQN-style step: the target network runs under no_grad and is not trained."""

PURPOSE = ("no_grad",)


def run(torch, nn, viz):
    torch.manual_seed(0)
    online = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
    target = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
    target.load_state_dict(online.state_dict())
    optimizer = torch.optim.SGD(online.parameters(), lr=0.01)
    state, next_state = torch.randn(8, 4), torch.randn(8, 4)
    action, reward = torch.randint(0, 2, (8, 1)), torch.randn(8)

    optimizer.zero_grad()
    with viz.trace():
        with torch.no_grad():
            best_next = target(next_state).max(dim=1).values
            goal = reward + 0.99 * best_next
        q = online(state).gather(1, action).squeeze(1)
        loss = ((q - goal) ** 2).mean()
    return viz.explain(loss, online, optimizer, details=True)
