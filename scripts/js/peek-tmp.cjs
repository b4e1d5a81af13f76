const { ApiPromise, WsProvider } = require('@polkadot/api');
(async () => {
  const api = await ApiPromise.create({ provider: new WsProvider(process.argv[2]), noInitWarn: true });
  const e = await api.query.arbitration.disputes.entries();
  for (const [k,v] of e) { const h = v.toHuman(); console.log(h.stage && JSON.stringify(h.stage), h.turn, h.moves, h.deadline); }
  const hd = await api.rpc.chain.getHeader(); console.log('block', hd.number.toNumber());
  process.exit(0);
})();
