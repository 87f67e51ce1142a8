import { redirect } from "next/navigation";
import { pageActor } from "@/lib/auth/server";
import { LANDING } from "@/lib/auth/roles";

export default async function Home() {
  const actor = await pageActor();
  redirect(LANDING[actor.role]);
}
