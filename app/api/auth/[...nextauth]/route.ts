import NextAuth from "next-auth";
import { authOptions } from "@/lib/auth/options";
import { appContext } from "@/lib/context";

const handler = NextAuth(authOptions(() => appContext().live));
export { handler as GET, handler as POST };
