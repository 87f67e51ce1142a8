// Pages send a visitor without a session to /login; nothing calls unauthorized() now.
import { UnauthorizedPage } from "./access-fallbacks";

export default function Unauthorized() {
  return <UnauthorizedPage />;
}
