// A fixed, deterministic order catalogue for the refund-desk demo.
export type Order = { order_id: string; customer: string; email: string; total_cents: number; status: "delivered" | "shipped" | "lost" };

export function lookupOrder(orderId: string): Order | null {
  const m = /^ORD-(\d{3,8})$/.exec(orderId);
  if (!m) return null;
  const n = Number(m[1]);
  return {
    order_id: orderId,
    customer: `Customer ${n % 97}`,
    email: `customer${n % 97}@example.com`,
    total_cents: 1000 + ((n * 7919) % 90000),
    status: n % 5 === 0 ? "lost" : "delivered",
  };
}
