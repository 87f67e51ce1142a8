import { NotFoundPage } from "./access-fallbacks";

export default function NotFound() {
  return <NotFoundPage />;
}
