import { ForbiddenPage } from "./access-fallbacks";

export default function Forbidden() {
  return <ForbiddenPage />;
}
