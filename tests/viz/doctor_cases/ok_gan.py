"""A GAN step: the discriminator learns on fake.detach(), the generator through D."""

PURPOSE = ("cut",)


def run(torch, nn, viz):
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 3))
    D = nn.Sequential(nn.Linear(3, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))
    opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
    opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
    bce = nn.BCEWithLogitsLoss()
    real, z = torch.randn(8, 3), torch.randn(8, 2)
    ones, zeros = torch.ones(8, 1), torch.zeros(8, 1)

    opt_d.zero_grad()
    with viz.trace():
        fake = G(z)
        d_loss = bce(D(real), ones) + bce(D(fake.detach()), zeros)
    d_report = viz.explain(d_loss, D, opt_d, details=True)
    d_loss.backward()
    opt_d.step()

    opt_g.zero_grad()
    with viz.trace():
        g_loss = bce(D(fake), ones)
    g_report = viz.explain(g_loss, G, opt_g)
    assert g_report.ok, g_report
    return d_report
