// Slack's interactivity request URL (docs/slack.md): the signed payloads of Approve, Reject and the reject modal.
import { appContext } from "@/lib/context";
import { slackInteractionsRoute } from "@/lib/services/slack-interactions";

export const POST = slackInteractionsRoute(appContext);
