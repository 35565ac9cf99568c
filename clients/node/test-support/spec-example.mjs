import { HotKV } from "@hotkv/client";

const client = new HotKV({ url: "hotkv://127.0.0.1:6379" });

const tx = await client.watch("stock:widget");
const stock = Number(await client.get("stock:widget"));
tx.set("stock:widget", String(stock - 1));

const results = await tx.exec();
if (results === null) {
  // stock:widget changed after watch(): retry
}
