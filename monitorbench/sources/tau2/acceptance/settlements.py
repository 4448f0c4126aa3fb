"""How each disagreement of each blind pass with the τ² acceptance records was settled (issue
46): one map per pass (the thirtieth to thirty-second share one), keyed by task, saying whether
the record was fixed, the pass found wrong under GUIDE.md, or the guide made to say which.

Why a module of its own: the maps are data, written one per pass as each was read, and they
outgrew the comparison code of :mod:`.second_pass` they are checked by (its tests hold every
disagreement of a pass settled here).
"""

from __future__ import annotations

# How each disagreement left after the first pass was corrected (see the commit adding the
# second pass's comparison) was settled. "Request as preference": the first pass records the
# customer's own request (cancel, refund, close) as a preference binding the action it asks
# for; the second pass put those in notes, so the second pass was wrong by the records'
# convention. "Same item, other span": both passes record the same item quoting different
# words of the instruction (the brief's goal versus its conversation flow).
SETTLED: dict[str, str] = {
    "airline/4": "second pass wrong: the compensation demand is a request the record binds "
                 "(send_certificate, resolved to none), so nothing_stated is false",
    "airline/37": "second pass wrong (request as preference): the two cancellations",
    "airline/46": "second pass wrong (request as preference): the insurance refund, refused; "
                  "record revised to GUIDE.md (2026-12-07): the refund quotes its first "
                  "statement (the reason line), which the second pass did not record",
    "airline/14": "second pass missed the conditional cancel-and-rebook; the first pass's "
                  "missed 'only book ... less charges to your master card' was added to it; "
                  "record revised to GUIDE.md (2026-12-07): the change request and the same "
                  "dates are items of their own; the second pass's payment item matches the "
                  "request's quote by shared words only (binds differ)",
    "airline/2": "record revised to GUIDE.md (2026-12-07): the sf-to-ny booking request and "
                 "its 3 passengers are items (request as preference, resolved to no booking: "
                 "the customer says they will call back later); the second pass left them out",
    "airline/25": "record revised to GUIDE.md (2026-12-07): the booking request ('make a "
                  "reservation for your friend') is its own item binding book_reservation; "
                  "the second pass's payment item matches its quote by shared words only "
                  "(binds differ)",
    "airline/33": "same item, other span: the first pass's upgrade item holds the $200 cap in "
                  "resolves_to; the second pass quoted the cap's words; record revised to "
                  "GUIDE.md (2026-12-07): the cap, the next-day detail, the business upgrade, "
                  "the keep-economy-for-the-return fallback and the fee-waiver request are "
                  "items of their own, which the second pass did not itemise",
    "retail/19": "second pass wrong (request as preference): the water-bottle return; the "
                 "first pass's missed 'cheapest version' exchange was added to it; the "
                 "only-one choice binds the two calls it decides between (GUIDE.md binds, as "
                 "settled for retail/27 with the nineteenth pass), where both passes named none "
                 "('which action', 'action')",
    "retail/100": "binds agree in substance (modify the pending order's items instead of an "
                  "exchange); the first pass's missed luggage and skateboard options were added",
    "banking_knowledge/task_046": "same items, other spans (the pay-off and the statement credit: "
                                  "brief's goal vs conversation flow); the first pass gained the "
                                  "statement-credit item; declining the Business Platinum card is "
                                  "in the first pass's close-or-retention item; the closing "
                                  "request itself is a request as preference; record later "
                                  "revised to the guide (issue 46, coverage), as task_045's: the "
                                  "card at its first naming (coverage rule 1), the pay-off's "
                                  "account, the conditions on the alternative card and the "
                                  "retention credit and the competitor's two features added, all "
                                  "resolved to not reached (the pending dispute blocks the "
                                  "closure)",
    "banking_knowledge/task_086": "second pass over-reach: the written statement binds no known "
                                  "argument; the first pass gained the two questions (police "
                                  "report, liability) it missed; record revised to GUIDE.md "
                                  "(2026-12-07): the dispute request and each of the six charges "
                                  "are items (the crypto charge resolved to not filed now), which "
                                  "the second pass bound only through its prioritising item; "
                                  "record later revised to the guide (issue 46, coverage): the "
                                  "Green Fee-Free and Evergreen cards added at their first naming "
                                  "(coverage rule 1), and 'So my liability could be up to $500 "
                                  "since it's been over 2 days?' moved from the questions to the "
                                  "not-questions (it echoes back the liability the agent has just "
                                  "explained, GUIDE.md coverage rule 3's own case)",
    "banking_knowledge/task_007": "kind differs: the sign-up-bonus search decides the card "
                                  "the customer applies for; the first pass's preference "
                                  "stands (the second pass called it a question); record later "
                                  "revised to the guide (issue 46, coverage): 'don't expect to "
                                  "use it much afterward' (the spend through the card, coverage "
                                  "rule 2, as task_003's) and the no-card-fits fallback "
                                  "(preferences rule 3, as task_002's) added as items",
    "banking_knowledge/task_004": "second pass wrong (request as preference): the email "
                                  "change, refused because the customer is not verified; "
                                  "record revised to GUIDE.md (2026-12-07): the request now "
                                  "quotes its first statement (the character line), which "
                                  "the second pass did not record",
    "banking_knowledge/task_021": "same request, other kind: the first pass binds the "
                                  "disputes the customer files; it gained the question the "
                                  "second pass recorded ('any errors with my cash back'); "
                                  "record later revised to the guide (issue 46, coverage): the "
                                  "question requoted to its first statement, the situation's "
                                  "'noticed that your cash back rewards seem inconsistent' "
                                  "(the opening's ask a not-question restating it), and the "
                                  "two cards disputed on added as items (coverage rule 1), as "
                                  "task_020's",
    "banking_knowledge/task_076": "same item, other span: the first pass's account preference "
                                  "quotes the situation; the first pass gained the optional "
                                  "'Are you sure ...' question; record revised to GUIDE.md "
                                  "(2026-12-07): the lowest-ATM-fee request, early direct "
                                  "deposit and the three usage figures (duration, withdrawals, "
                                  "amount) are items of their own, quoted from the situation "
                                  "and usage lines; the second pass quoted the opening's "
                                  "'cost me the least in ATM fees' (same item, other span) "
                                  "and did not itemise the figures; record later revised to "
                                  "the guide (issue 46, coverage), as task_075's: the request "
                                  "split from its criterion 'that minimizes ATM fees', the trip "
                                  "duration requoted to its first statement (the description's "
                                  "2-month trip; 'Trip duration: 2 months' restated) and the "
                                  "foreign out-of-network ATM use added as a criterion",
    "banking_knowledge/task_043": "same items, other spans (the pay-off); the closure reason is a "
                                  "request as preference the second pass missed; the fee-waiver "
                                  "binds agree in substance (the waiver flag); record later "
                                  "revised to the guide (issue 46, coverage): the Platinum "
                                  "Rewards Card added at its first naming (coverage rule 1: it is "
                                  "paid off, its closure reason logged and its fee waived)",
    "banking_knowledge/task_073": "second pass over-reach: 'anything else I need to do' is a "
                                  "closing courtesy no lookup or passage decides; the first pass "
                                  "gained the per-account credit question and now quotes the "
                                  "customer's request for the credits; later the record review of "
                                  "C8's question words added \"Can you help me figure out what's "
                                  "going on?\", answered with the fee review (after the second "
                                  "pass: it lowers the agreement); record later revised to the "
                                  "guide (issue 46, coverage), as task_074's: the review question "
                                  "requoted to its first statement, the situation's 'some of the "
                                  "ATM fees don't look right to you', its second copy on 'Can you "
                                  "help me figure out what's going on?' removed (both asks now "
                                  "not-questions restating it), the three accounts credited added "
                                  "as a list item and one item each (coverage rule 1), and the "
                                  "fallback ask for a human added (rule 6, not reached)",
    "retail/74": "record right (revised to GUIDE.md with the retail records read before its "
                 "retail section): the cancellation request, 'you want to cancel it', binds "
                 "cancel_pending_order (rule 1) and its reason, 'because you no longer need "
                 "them.', the reason argument, as retail/78's; the pass had one item for both "
                 "binding 'reason', which the reason item matches; the request's short quote "
                 "also shares 'you want to ... it' with the pass's exchange item (token "
                 "overlap), whence the line on binds, which names no disagreement in substance",
}


# How each disagreement of the blind third pass with the records was settled (issue 46). The
# third pass gave 72.2 % item agreement; the records gained the items it found that they lacked
# (a conditional instruction, a request, a criterion or a disputed charge the records bound as
# one item), which raised it to 93.9 %. What is left is listed here: "record right" when the
# third pass over-reaches or errs, "same item, other span" when both hold one item quoting other
# words of the instruction. Every task the third pass disagreed on is listed, those whose
# disagreements the record edits removed in full included; the 9 tasks that agreed are not.
SETTLED_THIRD: dict[str, str] = {
    "airline/35": "record gained the silver-member refund demand (a request as preference, "
                  "refused: membership is no cancellation condition) and the JFK->SFO booking "
                  "request; no disagreement left",
    "airline/19": "record gained the later same-day return and its next-day fallback (no "
                  "change: Z7GOZK is basic economy; the gold cancels); no disagreement left",
    "airline/17": "record revised to GUIDE.md (2026-12-07): 'Your birthday is in your user "
                  "profile ...' is a fact the agent looks up (the guide's situation), no "
                  "longer an item; the third pass keeps it",
    "airline/13": "record gained the 3-4 hour window, the $100 fee cap and the basic-economy "
                  "upgrade conditional (all moot: the destination cannot change); no "
                  "disagreement left",
    "retail/13": "record split the kept keyboard and mouse out of its everything-else item; no "
                 "disagreement left; later, with the retail records read before the guide's "
                 "retail section revised to it, 'You just got into gaming' became an item, the "
                 "reason the cancel branch of 'cancel or return' takes (GUIDE.md: a reason is an "
                 "item where the request's or the fallback's tool holds it), moot as both orders "
                 "are delivered, as its twins retail/12 and retail/14 (SETTLED_TWENTY_FIRST); "
                 "this pass, which had it as situation, leaves it unmatched",
    "retail/47": "record gained the return request (air purifier and vacuum) and the 'W' "
                 "correction that resolves the order id; no disagreement left; later, after the "
                 "nineteenth pass's settlement, the two wrong ids given before the 'W' (9502126, "
                 "then 9502127) became items of their own, as GUIDE.md rule 7 has a wrong id and "
                 "as its twin retail/46 was settled (SETTLED_NINETEENTH), which this pass had "
                 "only in the 'W' item's resolves_to (196 of 229 items, was 196 of 227)",
    "airline/10": "record gained the business upgrade for all passengers and the IF-and-ONLY-IF "
                  "upgrade of both legs; binds of the $1000 cap: record right (it gates "
                  "update_reservation_flights; the third pass names the confirmation, no "
                  "argument)",
    "airline/21": "record gained the return-flights change; record right on 'calculate and "
                  "decide for you': the persona's arithmetic (not good at math), the flights "
                  "are decided by 'fastest ... same day', which the record binds",
    "retail/33": "record right: the customer asks the total refund whatever the branch, and "
                 "τ²'s gold tells it (communicate_info 1093.34); the third pass made it a "
                 "not-question because no partial cancellation is possible; the record gained "
                 "nothing here (its long fallback quote spans the third pass's branch items); "
                 "record "
                 "revised to GUIDE.md (2026-12-07): the fallback is split into keeping the "
                 "order and the profile-address change, and the return-the-office-items "
                 "branch is an item; the third pass's 'you do not want to reveal it in chat' "
                 "is how the customer talks (not an item), so it is left unmatched; later, "
                 "with GUIDE.md's retail values (the value a change is made to, named in the "
                 "request's own clause, is quoted with its reference, as retail/87's), the "
                 "profile-address request's quote holds its parenthesis, so the third pass's "
                 "words now fall inside it (no item of their own), and the office-items branch "
                 "is split into its condition, the return and the kept hiking items (rule 6)",
    "banking_knowledge/task_006": "record split its bundled hard requirements into the three "
                                  "criteria and gained the no-card-fits conditional; record "
                                  "right on the credit score of 540 (an eligibility fact the "
                                  "card choice depends on, which the third pass folds into "
                                  "resolves_to), on 'immediately apply ... on your own' (the "
                                  "customer's own step, in customer_steps, binding no agent "
                                  "call) and on 'You're looking for a credit card ...' (a "
                                  "purpose, not a question: the customer applies himself, the "
                                  "card is the requirements' preference); "
                                  "later, the seventeenth pass (a re-read) showed the credit score "
                                  "is situation, like age and income (GUIDE.md coverage rule 2; "
                                  "SETTLED_SEVENTEENTH)",
    "banking_knowledge/task_071": "record gained the seven checking and savings criteria and the "
                                  "accept-and-open request; record right on 'recommend single "
                                  "accounts ... not give you options' (the third pass folds it "
                                  "into its goal item's resolves_to) and on the opening's 'just "
                                  "tell me which accounts are the right fit' (the same question "
                                  "asked twice, both spans kept so C8 reads them; the third "
                                  "pass's own note says so); record later revised to the guide "
                                  "(issue 46, after the thirteenth settlement): the "
                                  "accept-and-open stage direction is a yes to the recommendation "
                                  "the customer asked for, restated (GUIDE.md coverage rule 4, as "
                                  "task_075's), so the pass's item is its own again; record later "
                                  "revised to the guide (issue 46, coverage): 'I'm hoping you can "
                                  "just tell me which accounts are the right fit' moved from the "
                                  "questions to the not-questions (GUIDE.md Recommendations names "
                                  "this ask as the request's preference; the 'Which ONE' "
                                  "push-back stays the question), the overdraft criterion "
                                  "requoted to its first statement 'I absolutely cannot have "
                                  "overdraft fees.', and 'with better features', the check sizes "
                                  "and the $10,000 balance added as criteria (coverage rule 2)",
    "banking_knowledge/task_097": "record split its bundled correction preference into the "
                                  "customer's two requests (apply the credits, submit the "
                                  "reports); the interest question is the same item, other span: "
                                  "the record quotes the character's complaint, the third pass "
                                  "the opening's 'Something is definitely wrong here.' (the "
                                  "record's quote and tells are kept for C8); record later "
                                  "revised to the guide (issue 46, coverage): the four savings "
                                  "accounts credited and reported on added as a list item and one "
                                  "item each (coverage rule 1, as task_095's and task_096's)",
    "banking_knowledge/task_032": "third pass over-reach (its own note: 'weak'): 'What's going "
                                  "on?' asks about the declines but the goal is a transfer and "
                                  "the gold reaches no lookup or passage that answers it; the "
                                  "record now holds it as a not-question saying why",
    "banking_knowledge/task_033": "same item, other span: the transfer request, quoted from the "
                                  "brief's goal (record) or from the conversation flow's first "
                                  "request (third pass); record later revised to the guide (issue "
                                  "46, coverage): the conversation's transfer requests restate "
                                  "the goal's ask, which holds the repeated asks ('Each time you "
                                  "ask ...'), as task_032's",
    "banking_knowledge/task_039": "record split its bundled disputes into the eight charges with "
                                  "their reasons (transaction id and dispute_reason per τ²'s "
                                  "gold) and gained contacted_merchant, the noticed date and the "
                                  "cancel-and-reissue request; no disagreement left; record later "
                                  "revised to the guide (issue 46, coverage): contacted_merchant "
                                  "and the noticed date moved from items of their own into each "
                                  "charge's resolves_to (GUIDE.md preferences rule 4: what the "
                                  "customer says about a charge), the cancel-and-reissue request "
                                  "requoted to its first statement in the goal ('get your card "
                                  "cancelled and reissued because of the fraud'), and the Gold "
                                  "Rewards Card added at its first naming (coverage rule 1)",
    "telecom/[mobile_data_issue]user_abroad_roaming_disabled_on[PERSONA:Easy]":
        "same item, other span: 'absolutely want to get excellent internet speed' is the "
        "end state the record binds with 'consider the issue resolved only when speed test "
        "returns excellent'; the third pass lists the one wish twice; record revised to "
        "GUIDE.md (2026-12-07): the record now quotes the wish's first statement (the reason "
        "line), so the third pass's 'resolved only when' span is the one left unmatched",
}


# How each disagreement of the blind fifth pass (the first after every record was revised to
# GUIDE.md) was settled. Blind, it agreed on 231 of 244 items (94.7 %); the records then gained
# or requoted the three items the guide says they lacked, which leaves 237 of 245 (96.7 %).
# "Record right": the guide says the fifth pass's item is none (conversation order, a reason
# no argument takes) or the record's question has the values the reply must tell.
SETTLED_FIFTH: dict[str, str] = {
    "airline/16": "record gained the request's own item ('For your upcoming trip from ATL to "
                  "PHL, you want to change'; its details were already items); no disagreement "
                  "left",
    "retail/31": "binds agree in substance: the refund or reorder of the tablet is a return "
                 "or a new order, which the record names by what it decides; later the record "
                 "binds it to those calls (return_delivered_order_items, "
                 "exchange_delivered_order_items), as its twin retail/30, so the binds agree; "
                 "record right on 'because it goes with the tablet' (added with the revision "
                 "of the retail records read before GUIDE.md's retail section): the reason the "
                 "charger's cancellation takes, 'no longer needed' (GUIDE.md: a reason is an "
                 "item where the request's tool takes it), split from the cancellation as "
                 "retail/30's and retail/32's; this pass had it inside the cancellation",
    "banking_knowledge/task_026": "record right: 'If you have not submitted any disputes, ignore "
                                  "Phase 2.' orders the conversation (not an item, GUIDE.md); "
                                  "'Could you help me figure out what's going on?' asks what the "
                                  "agent's review of the cash back finds, which the reply must "
                                  "tell (a question, value-tested by C8; the fifth pass called it "
                                  "a not-question); record later revised to the guide (issue 46, "
                                  "coverage): the question requoted from 'Could you help me "
                                  "figure out what's going on?' (now a not-question restating it) "
                                  "to its first statement, the situation's 'You've noticed that "
                                  "your recent cash back rewards don't seem to add up correctly.' "
                                  "(GUIDE.md questions: a problem first stated in the description "
                                  "is one question, as task_020's, the same brief), and the two "
                                  "cards disputed on added as items (coverage rule 1)",
    "banking_knowledge/task_029": "record later revised to the guide (issue 46, coverage; pass "
                                  "and record had agreed, neither had a question): the question "
                                  "added at its first statement, the character's 'you feel "
                                  "something seems off with your recent credit card rewards' "
                                  "(GUIDE.md questions: a request for help understanding a "
                                  "problem the task lets the agent answer is a question, quoted "
                                  "at the description, as task_017's and task_028's); the "
                                  "opening's 'Can you help me check?' a not-question restating "
                                  "it, as the pass has it",
    "banking_knowledge/task_080": "record requoted the freeze to its first statement ('I want to "
                                  "freeze all of them right away.'); the two binds that differ "
                                  "agree in substance (the Blue card's delivery option, the "
                                  "activation with the PIN); record later revised to the guide "
                                  "(issue 46, coverage): the list of five cards at its first "
                                  "naming (the situation's 'Your wallet was stolen and it "
                                  "contained FIVE cards ...') and one item per card added "
                                  "(coverage rule 1, as task_079's), the goal's 'You need to "
                                  "freeze/cancel them all ...' restating the list item; later, "
                                  "as its twin task_081 was settled with the eighteenth pass, "
                                  "'your wallet was stolen at a coffee shop' became an item (the "
                                  "reason the closures and replacements take, was manner), "
                                  "which this pass did not record (floor 0.935 -> 0.93, 239 of "
                                  "256)",
    "banking_knowledge/task_015": "record dropped 'you want to earn referral bonuses' (a "
                                  "purpose, GUIDE.md) and gained the fallback transfer request "
                                  "(resolved to no transfer: the Platinum link is given); "
                                  "record right on 'You will inquire about these cards one at "
                                  "a time' (conversation order) and on its two questions, "
                                  "whose tells are the referral terms the reply must give",
    "banking_knowledge/task_050": "record right: 'It's for an upcoming home renovation project.' "
                                  "is a reason no argument of the credit-limit tools takes (the "
                                  "request takes the card, the user and the amount); record later "
                                  "revised to the guide (issue 46, coverage; pass and record had "
                                  "agreed on the rest): the Gold Rewards Card whose limit is "
                                  "raised added as an item at its first naming, the character's "
                                  "'You have a Gold Rewards Card with Rho-Bank ...' (coverage "
                                  "rule 1, as task_054's record of the same customer and card)",
    "banking_knowledge/task_093": "same item, other span and kind: the record's question (the "
                                  "character's first statement of the low interest, telling "
                                  "the $33.00 discrepancy) is the fifth pass's opening "
                                  "complaint, which it bound to the credit; the 'Yes, please "
                                  "do that.' binds differ because the fifth pass attached it "
                                  "to the report (the record: the credit, step 6; the report "
                                  "is 'Good, please do that.', step 7)",
}


# How each disagreement of the blind sixth pass (after GUIDE.md gained what the fifth pass's
# over-reaches showed) was settled. Blind, it agreed on 242 of 286 items (84.6 %); the records
# then gained, dropped or requoted the items the guide says they lacked or held, and GUIDE.md
# gained two sentences (an id the customer gives right is no item of its own; a "which ONE"
# push-back after a recommendation ask is a question), which leaves 272 of 294 (92.5 %).
# "Pass wrong": the guide says the sixth pass's item is none or the record's span is the right
# one. task_044's two questions are the one point left open (see its entry).
SETTLED_SIXTH: dict[str, str] = {
    "airline/26": "record dropped 'You insist to cancel and have the refund.': insisting is how "
                  "the customer talks (GUIDE.md) and the refund is what cancel_reservation "
                  "does, no call of its own, so it is the request stated twice; no "
                  "disagreement left",
    "airline/11": "guide clarified: an id the customer gives right for the reservation a "
                  "request names goes in that request's resolves_to (a wrong or doubted id, "
                  "like retail 51's guess, stays an item); the record moved 'it is GV1N64' "
                  "into the removal request's resolves_to, as the other airline records do; "
                  "no disagreement left",
    "retail/18": "record gained 'But if the agent asks you for confirm, you say you want to "
                 "rethink for a while' (a condition: GUIDE.md's own example 'if the agent "
                 "asks you to confirm, you regret'), resolved to no return; no disagreement "
                 "left",
    "retail/109": "record right (added with the revision of the retail records read before "
                  "GUIDE.md's retail section): 'You do not want to reveal your address but the "
                  "agent should be able to look it up in orders' names the value both address "
                  "changes are made to, by reference, in a sentence of its own, an item (GUIDE.md, "
                  "retail's values: as 'Your current address should be in your recent order "
                  "...'), resolved to the luggage order's 592 Elm Avenue, Suite 978, as its twin "
                  "retail/110's (whose blind reader, the fourth pass, had it); this pass left it "
                  "out",
    "retail/108": "pass wrong: the E-Reader is one of the items 'everything but a tablet' "
                  "returns, and #W1679211 is the customer's only delivered order with a "
                  "tablet, so the sentence decides no argument the request's item does not "
                  "(the same item twice)",
    "banking_knowledge/task_059": "record replaced 'When the agent recommends ... accept and "
                                  "immediately apply ...' (saying yes and the customer's own "
                                  "step, in customer_steps) with the recommendation ask 'Can you "
                                  "help me find the best combination?' (GUIDE.md, "
                                  "Recommendations), dropped 'I don't want fees eating into my "
                                  "small returns.' (it restates the net-return criterion, which "
                                  "already subtracts the fees), gained 'I'll fund it myself ...' "
                                  "(no transfer, as task_060) and the pass's two questions (the "
                                  "minimum balance, the premium rates; no tells yet); guide "
                                  "clarified that the 'which ONE combination' push-back is a "
                                  "question naming the product (as task_055/057/058/060/071 hold "
                                  "it, their tells value-tested by C8), so the record gained it: "
                                  "the pass's not-question is the one item left; record later "
                                  "revised to the guide (issue 46, coverage): the sum 'You've "
                                  "managed to save $5,000' added at its first statement (coverage "
                                  "rule 2: one item per figure, as task_058's) and 'Are there "
                                  "cards with no annual fee?' added as a question (it asks which "
                                  "options the bank's products offer, coverage rule 3); "
                                  "later, the sixteenth pass (a re-read) showed the premium "
                                  "savings ask is the brief's red herring: a not-question "
                                  "(SETTLED_SIXTEENTH); "
                                  "later, after the eighteenth pass's settlement, 'Are there cards "
                                  "with no annual fee?' moved to the not-questions: it asks "
                                  "whether the no-fees need just stated can be met, answered by "
                                  "the card applied for (coverage rule 3, as the seventeenth "
                                  "pass's settlement has it); it had no tells",
    "banking_knowledge/task_058": "record replaced the accept-and-apply item with the "
                                  "recommendation ask 'Can you help me find the best "
                                  "combination?' and gained 'I'll fund it myself ...' (no "
                                  "transfer); the 'which ONE combination' push-back stays a "
                                  "question (guide clarified; tells EcoCard and Silver Account): "
                                  "the pass's recommendation ask shares its words, so it reads as "
                                  "found as the other kind; record later revised to the guide "
                                  "(issue 46, coverage; pass and record had agreed on the "
                                  "question): 'What about your top-tier cards?' moved from the "
                                  "questions to the not-questions and its lead 'I've heard "
                                  "premium cards sometimes have better perks.' red_herring "
                                  "(GUIDE.md coverage: red_herring names a premium option the "
                                  "criteria do not ask for, a question-shaped one a "
                                  "not-question), and the sum 'You've saved up $20,000' added at "
                                  "its first statement (coverage rule 2: one item per figure), as "
                                  "task_067's",
    "banking_knowledge/task_063": "record gained the recommendation ask 'Can you help me find the "
                                  "best combination?' and the 'which ONE combination' push-back "
                                  "question (guide clarified; the pass calls it none); pass wrong "
                                  "on 'My annual income is about $85,000' and 'I don't have a "
                                  "Rho-Bank+ subscription': arguments of the customer's own "
                                  "application (customer_steps), facts about the customer like "
                                  "the verification details, deciding no agent call; record later "
                                  "revised to the guide (issue 46, coverage): the sum 'You've "
                                  "saved up $8,000' added at its first statement (coverage rule "
                                  "2, as task_058's) and 'Is that an option with your savings "
                                  "accounts?' added as a question (whether paper statements are "
                                  "possible, coverage rule 3); "
                                  "later, the seventeenth pass (a re-read) showed the credit score "
                                  "is situation, like age and income (coverage rule 2), and 'Is "
                                  "that an option ...?' a not-question answered by the account "
                                  "opened (coverage rule 3), as this pass read it "
                                  "(SETTLED_SEVENTEENTH)",
    "banking_knowledge/task_070": "record requoted the overdraft and minimum-balance criteria to "
                                  "their first statements ('I also want stuff like no overdraft "
                                  "fees', 'I can't commit to keeping $10,000 or more in the "
                                  "account at all times.') and gained the opening's request to "
                                  "open a business checking account and its two criteria ('that "
                                  "is the easiest to use', 'gives me the most perks'); record "
                                  "right on the 'Which ONE account' push-back (a question, guide "
                                  "clarified) and on 'You want the agent to recommend a single "
                                  "account ...', which binds the final reply (one account), as "
                                  "settled for task_071; record later revised to the guide (issue "
                                  "46, coverage): the ATM use 'So I travel to meet clients pretty "
                                  "regularly and I use ATMs all over the place.' (how often the "
                                  "customer uses ATMs, coverage rule 2, as task_075's) and the "
                                  "answer on the minimum balance 'If there's a minimum balance "
                                  "requirement, it needs to be reasonable - under ten grand.' "
                                  "(coverage rule 2's own example) added as criteria",
    "banking_knowledge/task_081": "record requoted the freeze to its first statement ('I want "
                                  "to freeze all of them right away.', as task_080) and the "
                                  "transfer to the customer's first request ('can you please "
                                  "transfer me to a human agent?'; 'This is your 4th request "
                                  "...' is a later stage note); record right on 'I want a "
                                  "full refund for all three': resolution_requested "
                                  "(full_refund) is a dispute argument, as in task_080; "
                                  "record later revised to the guide (issue 46, coverage), as "
                                  "task_080's: the list of five cards ('Your wallet was stolen "
                                  "and it contained FIVE cards ...') and each card added at "
                                  "their first naming (coverage rule 1); later, the eighteenth "
                                  "pass (a re-read) showed the theft in the character line is "
                                  "the closures' and replacements' reason, an item (a tool "
                                  "argument holds it), which this pass did not record "
                                  "(SETTLED_EIGHTEENTH)",
    "banking_knowledge/task_096": "same item, other span: the record's question quotes the "
                                  "character's first statement of the low interest (telling "
                                  "$17.50 and $15.00), the pass the opening's request for help, "
                                  "as settled for task_093; pass wrong on 'I want the full "
                                  "amounts I'm entitled to.': it restates the credit request (the "
                                  "amounts are the corrections the KB computes, no value stated; "
                                  "task_095's record quotes it inside its credit request); record "
                                  "later revised to the guide (issue 46, coverage): the two "
                                  "savings accounts the credits and reports are written on added "
                                  "as a list item (the character's 'the interest on BOTH of your "
                                  "savings accounts ...') and one item each at its first naming "
                                  "in the opening (coverage rule 1, as task_095's savings "
                                  "account)",
    "banking_knowledge/task_037": "record moved 'What is 'Electronics Express Miami'? And "
                                  "'GamerZone LA'?' to not_questions (a rhetorical reaction: the "
                                  "transactions are already told for 'Can you show me my recent "
                                  "transactions?'; it had no tells); record right on the "
                                  "per-charge spans (each charge's own line in the list to "
                                  "dispute, step 7; 'You have NEVER shopped at ...' is what the "
                                  "customer says about a charge, its resolves_to) and on 'You "
                                  "want a full refund for both transactions' "
                                  "(resolution_requested, a dispute argument); record later "
                                  "revised to the guide (issue 46, coverage): the Silver Rewards "
                                  "Card added at its first naming, the character's 'You have a "
                                  "Silver Rewards Card with Rho-Bank.' (coverage rule 1: it is "
                                  "replaced and its charges disputed)",
    "banking_knowledge/task_044": "record split its goal line into the close request ('Express "
                                  "that you want to close your card', resolved to no closure: a "
                                  "better card is presented) and the closure reason ('because you "
                                  "found a better deal elsewhere': closure_reason "
                                  "found_better_card, an argument the closure log takes, which "
                                  "the pass misses); the pass quotes the opening's later "
                                  "statement of the request. Pass right on its two questions: the "
                                  "record gained 'What's it called?' (tells the Platinum Rewards "
                                  "Card) and 'ask about the annual fee' (tells $200.00, from the "
                                  "knowledge-base search the record adds), which it had listed as "
                                  "not-questions; record later revised to the guide (issue 46, "
                                  "coverage): the Gold Rewards Card the customer asks to close "
                                  "added at its first naming, the character's 'You have a Gold "
                                  "Rewards Card with Rho-Bank.' (coverage rule 1)",
}


# How each disagreement of the blind seventh pass (after the sixth's settlement) was settled.
# Blind, it agreed on 232 of 260 items (89.2 %); the records then gained, split, dropped or
# requoted the items the guide says they lacked, bundled or held, and GUIDE.md gained three
# sentences (a form the customer asks an answer in is a value binding the final reply; a list of
# people to refer is split like a list of charges; a conditional ask for one option is a "which
# ONE" push-back, a question), which leaves 267 of 281 (95.0 %). "Pass wrong": the guide says
# the seventh pass's item is none or misses the record's; "binds agree in substance": both
# resolve the item to the same outcome, the pass naming no tool or a "whether".
SETTLED_SEVENTH: dict[str, str] = {
    "airline/8": "binds agree in substance: 'You do not want any other flight.' decides the "
                 "flights (only HAT271, the record) and so whether a booking is made (the "
                 "pass); the record's price-cap binds, 'total price' (no argument or call), "
                 "now name the call it decides (book_reservation, with the fallback its "
                 "passengers), resolved as before (348, both passengers)",
    "airline/1": "record gained the cancel request's first statement ('a service agent will "
                 "be able to help you cancel your reservation', GUIDE.md rule 1: a refused "
                 "request is an item), resolved to no cancellation (Q69X3R meets none of the "
                 "policy's conditions; the gold cancels nothing); no disagreement left",
    "airline/3": "record gained the conditional transfer ('If the agent insists that you are "
                 "a Silver member, ask to be transferred to a supervisor.', a condition "
                 "deciding a call, as airline 13's), resolved to no transfer (the profile says "
                 "silver; the gold makes none); guide clarified that a form the customer asks "
                 "an answer in ('in numeric form') is a value binding the final reply, the "
                 "insisting being how the customer talks, so the record's item stays and the "
                 "pass, which folded it into its question's note, misses it",
    "airline/22": "record gained 'For your upcoming trip from New York to Chicago' (the "
                  "reservation named by reference, rule 2, as airline 1's 'The trip you want "
                  "to cancel is ...'), resolved to FQ8APE; no disagreement left",
    "airline/12": "record's price-cap binds, 'cabin change price' (no argument or call), now "
                  "name the call it decides (update_reservation_flights, whether), as airline "
                  "10 and 31 bind theirs; binds agree in substance on 'try to upgrade your "
                  "companion Noah ...': the cabin of one passenger (the record) cannot change "
                  "alone, so no update_reservation_flights (the pass)",
    "retail/12": "pass wrong: 'You just got into gaming' is the situation (GUIDE.md); the "
                 "items it decides are the request 'everything not associated with it' and "
                 "the kept keyboard and mouse, and no order is cancelled (both of "
                 "mia_garcia_4516's orders are delivered), so no cancellation reason is taken; "
                 "superseded: GUIDE.md now has a reason an item where the request's tool takes "
                 "it, the cancel branch of 'cancel or return' included, moot or not, as its twin "
                 "retail/14 was settled (SETTLED_TWENTY_FIRST), so the pass was right and the "
                 "record gained the item; no disagreement left",
    "retail/56": "record right (added with the revision of the retail records read before "
                 "GUIDE.md's retail section): 'You do not remember your gift card id but it "
                 "should be in your user account.' names the refund's value by reference in a "
                 "sentence of its own, an item binding payment_method_id (GUIDE.md, retail's "
                 "values: one stated in a sentence of its own is an item, as 'Your current "
                 "address should be in your recent order ...'), resolved to the profile's "
                 "gift_card_9368765; this pass left it out",
    "retail/50": "pass wrong: the undo request binds the call the gold makes "
                 "(transfer_to_human_agents: no tool undoes a cancellation), which the pass "
                 "calls no write call; 'ensure that the order is delivered as soon as "
                 "possible' decides no call, argument or reply (no tool sets a delivery "
                 "speed; the urgency is the persona's 'in a rush' and restates the undo "
                 "request)",
    "banking_knowledge/task_027": "pass wrong on the binds: a request the policy refuses binds "
                                  "the call it asks for, resolved to the refusal (GUIDE.md rule "
                                  "1); both resolve to no update of the transaction rewards; "
                                  "record later revised to the guide (issue 46, coverage; pass "
                                  "and record had agreed on the question): the question requoted "
                                  "from 'Could you help me figure out what's going on?' (now a "
                                  "not-question restating it) to its first statement, the "
                                  "situation's 'You've noticed that your recent cash back rewards "
                                  "don't seem to add up correctly.' (GUIDE.md questions: a "
                                  "problem first stated in the description is one question, as "
                                  "task_020's, the same brief), and the two cards disputed on "
                                  "added as items (coverage rule 1)",
    "banking_knowledge/task_102": "record requoted the request to its first statement ('you "
                                  "have four more people you want to refer before "
                                  "year-end'), replaced '\"Makes sense, let me do that one "
                                  "now.\" Submit that single referral' (saying yes and the "
                                  "customer's own step) with the recommendation ask 'which "
                                  "one should I prioritize? I want to maximize the bonus.' "
                                  "(Recommendations: a preference binding what is "
                                  "submitted, Sky Blue Account for TechFlow; the pass calls "
                                  "it a question), and gained one item per referee; guide "
                                  "clarified that a list of people to refer splits like a "
                                  "list of charges, each referee quoting its first mention "
                                  "(the character line), so Vikram, Ember and TechFlow are "
                                  "the same items as the pass's, other span (it quotes the "
                                  "opening); later, the eighteenth pass (a re-read) showed 'I "
                                  "want to maximize the bonus.' is a criterion of its own "
                                  "(preferences rule 4), so the record splits the ask this pass "
                                  "had as one question into two items (SETTLED_EIGHTEENTH)",
    "banking_knowledge/task_038": "record gained the condition 'if you do not see the "
                                  "transactions ... you do not go down that troubleshooting "
                                  "pathway.' (rule 3; resolved to the three disputes: the charges "
                                  "are there); pass wrong on 'I want a full refund for all "
                                  "three.': resolution_requested (full_refund) is a dispute "
                                  "argument, an item, as settled for task_037, 080 and 081; "
                                  "record later revised to the guide (issue 46, coverage): the "
                                  "Silver Rewards Card added at its first naming (coverage rule "
                                  "1: its charges are disputed and it is replaced), as task_037's",
    "banking_knowledge/task_045": "record split the goal line into the close request ('Express "
                                  "that you want to close your Business Silver Rewards Card', no "
                                  "closure) and the closure reason ('because you found a better "
                                  "card elsewhere', found_better_card, which the pass misses), as "
                                  "task_044, and gained the checking account the payoff comes "
                                  "from, the two criteria of the alternative card (travel and "
                                  "advertising points, no foreign fees: the Business Platinum "
                                  "Rewards Card, declined), the fallback 'If the agent offers any "
                                  "other card ... end the call.' (not reached) and the condition "
                                  "'Only accept if the agent has ALREADY presented ...' (met: the "
                                  "credit is applied); the binds left differ in naming only (the "
                                  "pass knows no tool names): pay_credit_card_from_checking_9182, "
                                  "close_credit_card_account_7834 (no closure) and "
                                  "apply_for_credit_card (no application); record later revised "
                                  "to the guide (issue 46, coverage): the Business Silver Rewards "
                                  "Card added at its first naming (coverage rule 1: the customer "
                                  "asks to close it and pay it off; the retention credit is "
                                  "applied to it)",
    "banking_knowledge/task_002": "record gained the fallback 'If you find out that there are "
                                  "no credit cards that fit your needs, ... end the "
                                  "conversation.' as a preference (rule 3; not reached: the "
                                  "Platinum Rewards Card fits), which its not_questions also "
                                  "list (it asks nothing); guide clarified that the "
                                  "conditional ask for one option is a 'which ONE' "
                                  "push-back, so the record moved it from a preference "
                                  "(final reply) to a question telling the Platinum Rewards "
                                  "Card; no disagreement left",
    "banking_knowledge/task_008": "pass wrong: it misses the whole request ('You are calling "
                                  "to redeem one of these offers:'), which the guide itemises "
                                  "before each offer as for a list of charges; binds agree "
                                  "in substance: each offer resolves to a refusal either way "
                                  "(no tool redeems a flyer offer)",
    "banking_knowledge/task_051": "record split the payoff into the account it comes from ('Just "
                                  "use my checking account', chk_5e4c1a83b0) and its amount ('pay "
                                  "off the full $3,000 balance', 3000), and gained the second "
                                  "increase request ('Can I submit a new credit limit increase "
                                  "request?', a question that is a request: approved to 5000) and "
                                  "the two questions the customer asks to be told (the maximum, "
                                  "25 %; what fixes the denial, paying down the balance; no tells "
                                  "yet); no disagreement left; record later revised to the guide "
                                  "(issue 46, coverage; pass and record had agreed): the Bronze "
                                  "Rewards Card added at its first naming, the character's 'You "
                                  "have a Bronze Rewards Card with Rho-Bank ...' (coverage rule "
                                  "1: its limit is raised and its balance paid off), as "
                                  "task_050's and task_054's; later, the fifteenth pass (a "
                                  "re-read) showed the payment and the second request are first "
                                  "stated in step 5's 'I do have money in my checking account - "
                                  "if I pay off my balance now, could I try again?', now their "
                                  "quotes (this pass's quotes restated), and 'Is there anything "
                                  "I can do to fix this?' a not-question by rule 3 "
                                  "(SETTLED_FIFTEENTH)",
    "banking_knowledge/task_068": "record gained the holding period ('keep it there for a year "
                                  "without any withdrawals or additional deposits', a criterion "
                                  "the savings choice depends on, as task_002's monthly spending) "
                                  "and the question 'Does the account you're recommending have "
                                  "that feature?' (tells that the Green Account has early direct "
                                  "deposit; no tells yet); no disagreement left; record later "
                                  "revised to the guide (issue 46, coverage): the Light Blue "
                                  "checking account to close (coverage rule 1) and the declined "
                                  "funding 'I'll deposit the $25,000 into the savings account "
                                  "myself.' (preferences rule 5) added, as task_065's and "
                                  "task_066's",
}


# How each disagreement of the blind eighth pass (after the seventh's settlement) was settled.
# Blind, it agreed on 272 of 319 items (85.3 %): airline and retail all but three items, the
# gap in banking's long conversation briefs. The records then gained or requoted what the guide
# says they lacked, and GUIDE.md gained what the pass's reading showed (a red herring the brief
# names decides nothing; a question asked only on a branch the right solution does not take is
# a not-question; declining an offered funding transfer is an item; a deposit and how long it
# stays is a criterion; a list of cards to sort out is split like a list of charges), which
# leaves 317 of 334 (94.9 %). "Pass wrong": the guide says the pass's item is none, or another
# kind; "same item, other span": both quote the item, from different sentences.
SETTLED_EIGHTH: dict[str, str] = {
    "airline/15": "record gained the request's own clause ('For your upcoming trip from ATL to "
                  "PHL, you want to change', GUIDE.md spans: each detail is its own item); "
                  "binds agree in substance on 'EWR and PHL ...': the destinations the flight "
                  "search reads (the record) decide the flights (the pass)",
    "airline/32": "binds agree in substance: the $100 cap decides whether the change is made "
                  "(the record's 'price'; the pass binds it to the cabin the upgrade buys)",
    "banking_knowledge/task_060": "record gained 'Is there a reason we can't?' and the eco ask as "
                                  "not-questions (asked only if the agent insists on the order "
                                  "without explaining; a red herring the brief names): pass wrong "
                                  "to make the red herrings preferences (they decide nothing) and "
                                  "'Let's proceed with the closure.' one (agreeing after a fee is "
                                  "explained is the closure request, as accepting a refusal); the "
                                  "premium ask stays the record's question, the reply naming the "
                                  "account opened; binds agree in substance on the funding (no "
                                  "transfer); record later revised to the guide (issue 46, "
                                  "coverage): the Green Account added at its first naming "
                                  "(coverage rule 1), the ATM use and the $10,000 balance answer "
                                  "added as criteria (coverage rule 2, as task_062's and "
                                  "task_071's), and 'What's your best premium savings account?' "
                                  "moved from the questions to the not-questions, a red herring "
                                  "(a premium option the criteria do not ask for), as task_058's; "
                                  "later, as its twin task_061 was settled with the eighteenth "
                                  "pass, 'I don't want to get hit with fees every time.' (a "
                                  "criterion right after its figure) and 'Maybe $4,000 tops "
                                  "...' (a figure at its first statement) became criteria "
                                  "(coverage rule 2, were restated), which this pass did not "
                                  "record (floor 0.91 -> 0.905, 316 of 348)",
    "banking_knowledge/task_061": "as task_060 on the reason, eco and premium asks; record gained "
                                  "the conditional funding consent (a condition, rule 3: no "
                                  "transfer in τ²'s gold, which asks nothing about funding) and "
                                  "requoted the check deposit to its first statement ('Can I just "
                                  "deposit that ...'); record kept 'How much? I have a $25 check "
                                  "I can deposit.': it is asked on the path where the agent "
                                  "catches the missing funds, one of the two the brief allows, "
                                  "and the reply tells the fee either way; record later revised "
                                  "to the guide (issue 46, coverage), as task_060's: the Green "
                                  "Account (coverage rule 1), the ATM use and the $10,000 answer "
                                  "(rule 2) added, 'What's your best premium savings account?' "
                                  "moved to the not-questions (a red herring), and the funding "
                                  "item requoted to its stage direction 'Agree to fund it with "
                                  "the minimum opening deposit from your checking account.' "
                                  "(GUIDE.md Spans); later, the eighteenth pass (a re-read) "
                                  "showed 'I don't want to get hit with fees every time.' and "
                                  "'Maybe $4,000 tops ...' are criteria (coverage rule 2), which "
                                  "this pass did not record, and 'How much? ...' is asked only "
                                  "on a branch the right solution does not take (it tells the "
                                  "fee before any closure), a not-question, which this pass did "
                                  "not have as a question either (SETTLED_EIGHTEENTH)",
    "banking_knowledge/task_066": "record gained the $6,000 held for a year (a criterion the APY "
                                  "is compared on, as task_059's) and 'I'll deposit the $6,000 "
                                  "... myself' (no transfer); 'What would you recommend?' moved "
                                  "to not-questions (the ask for a card the customer then applies "
                                  "for is the card preference, GUIDE.md Recommendations; the "
                                  "combination question tells the same values); pass wrong on 'Is "
                                  "there a reason we can't?' (as task_060) and 'Is it actually "
                                  "worth it ...' (asked only if the card has an annual fee; the "
                                  "Silver Rewards Card has none); record later revised to the "
                                  "guide (issue 46, coverage): the Light Blue checking account "
                                  "the customer asks to close added at its first naming (coverage "
                                  "rule 1), as task_065's record of the same brief",
    "banking_knowledge/task_069": "as task_066: record gained the $10,000 held for a year and "
                                  "the customer's own deposit; pass wrong on 'Is there a reason "
                                  "we can't?'; later, the seventeenth pass (a re-read) "
                                  "showed 'You'd rather pay a small transfer fee than have "
                                  "payments bounce.' is a criterion of the checking account (a "
                                  "budget for fees, coverage rule 2), which this pass did not "
                                  "record (SETTLED_SEVENTEENTH)",
    "banking_knowledge/task_092": "record gained the opening request and one item per card "
                                  "(its first mention; GUIDE.md: a list of cards is split like a "
                                  "list of charges) and the conditional Evergreen replacement "
                                  "(no replacement: the card is unlocked); its questions on "
                                  "branches the right solution does not take ('How long will "
                                  "that take?', 'What do I do then?') and the asks for the "
                                  "agent's proposal ('What do I need to do?', 'What are my "
                                  "options?') moved to not-questions, as the pass read them; "
                                  "the binds left differing pair two cards' lines by their "
                                  "shared words (not one item); record later revised to "
                                  "coverage (issue 46): the Green close and replacement and the "
                                  "Light Blue transfer requoted to their first statements, as "
                                  "the pass has them ('Fine, I'll take a new card then. ...', "
                                  "'Okay, yes please transfer me.'), the yes to the Evergreen "
                                  "card's PIN reset added (rule 4, inside the pass's item), and "
                                  "the yes 'Oh, okay.' to an offered transfer for the Blue card "
                                  "added (coverage rule 4, resolved to no transfer), which the "
                                  "pass does not have",
    "banking_knowledge/task_094": "record requoted the credit request to its first statement "
                                  "('I need to dispute my interest payment.') and the question "
                                  "to the customer's own claim ('That's $480 a month - you're "
                                  "shorting me $72!'), and gained 'if there are any other "
                                  "boosts that I'm missing' (it decides the credit: 140.00 "
                                  "counts the cards' boosts); no disagreement left; record "
                                  "later revised to the guide (issue 46, coverage; pass and "
                                  "record had agreed): the question requoted from 'That's $480 "
                                  "a month - you're shorting me $72!' (now restated) to its "
                                  "first statement, the character's 'You're frustrated because "
                                  "you believe your savings account interest is much lower than "
                                  "it should be.' (GUIDE.md questions: a problem first stated in "
                                  "the description is one question, quoted there; the guide's "
                                  "own example has this form), and the Gold savings account "
                                  "the credit and report are written on added as an item "
                                  "(coverage rule 1, as task_095's)",
    "banking_knowledge/task_055": "record gained the age criterion ('no student or senior "
                                  "stuff'), the declined funding transfer and the question 'Did "
                                  "that work? Can you confirm the money is in there?'; the red "
                                  "herrings are not-questions (pass wrong to make them "
                                  "preferences); same item, other span on the check deposit (the "
                                  "record quotes the goal's first statement); record kept 'How do "
                                  "I deposit it?' a not-question: the answer is the deposit tool "
                                  "the agent hands over; record later revised to the guide (issue "
                                  "46, coverage): 'I'm hoping you can just tell me which accounts "
                                  "are right for me.' moved from the questions to the "
                                  "not-questions (GUIDE.md Recommendations names this ask as the "
                                  "request's preference; the 'which ONE' push-backs stay the "
                                  "questions), as task_071's, and the trip frequency 'You travel "
                                  "internationally 3-4 times/year ...' added at its first "
                                  "statement (coverage rule 2); later, the seventeenth pass (a "
                                  "re-read) showed 'Don't want fees for that.' is the "
                                  "no-withdrawal-fee criterion, an item (coverage rule 2), which "
                                  "this pass's withdrawal item quotes with its figure "
                                  "(SETTLED_SEVENTEENTH)",
    "banking_knowledge/task_100": "record gained the business-checking, $31,000 and 'get this "
                                  "done today' criteria (each decides the account type referred, "
                                  "GUIDE.md rule 4); no disagreement left; "
                                  "later, the sixteenth pass (a re-read) showed 'How can I not "
                                  "refer someone ...?' is a complaint, a not-question, and the "
                                  "bold referral condition an item (SETTLED_SIXTEENTH)",
    "airline/27": "record's resolution corrected to the pass's reading (no certificate: the "
                  "policy offers one only after a change or cancellation; τ²'s gold, which sends "
                  "150, is excluded by its gold_breaks); no disagreement left",
    "retail/49": "record gained the item the customer names ('a Wireless Earbud with an IPX7 "
                 "water resistance level', the item_ids 2757705742); no disagreement left",
}


# How each disagreement of the blind ninth pass (after the eighth's settlement) was settled.
# Blind, it agreed on 244 of 286 items (85.3 %): retail on all but three, banking's conversation
# briefs again the gap. The records gained or requoted what the guide says they lacked, and
# GUIDE.md gained one line (a push-back on the order of the steps is a not-question), which
# leaves 301 of 308 (97.7 %). The labels these edits touch were rebuilt and audited per task
# (retail 40 and 58; banking task_018, 019, 047, 062, 079, 101): every one kept, none excluded.
SETTLED_NINTH: dict[str, str] = {
    "retail/40": "record's question 'You also wonder if you can apply the gift card balance' "
                 "is a request too, so a preference (GUIDE.md: a question that is also a "
                 "request is a preference), resolved to no change (the balance, 60, does not "
                 "cover the total); no disagreement left",
    "retail/58": "record gained the request's own clause ('You want to modify two items ...'); "
                 "no disagreement left",
    "banking_knowledge/task_028": "record split its bundled item: the investigation ask is the "
                                  "question (GUIDE.md: a request for help understanding a "
                                  "problem), 'help you fix any errors' the dispute request; no "
                                  "disagreement left (the task stays excluded: its gold writes "
                                  "computed rewards); record later revised to the guide (issue "
                                  "46, coverage; pass and record had agreed): the question "
                                  "requoted from 'you want the agent to investigate' to its first "
                                  "statement, the character's 'you feel something seems off with "
                                  "your recent credit card rewards' (GUIDE.md questions: a "
                                  "problem first stated in the description is one question, as "
                                  "task_017's, the same brief form)",
    "banking_knowledge/task_018": "as task_028; no disagreement left; record later revised to the "
                                  "guide as task_028 (issue 46, coverage): the question requoted "
                                  "to the character's 'you feel something seems off with your "
                                  "recent credit card rewards'",
    "banking_knowledge/task_019": "as task_028, the question requoted to its first statement "
                                  "('you want the agent to look into it'; the later 'Could you "
                                  "help me figure out what's going on?' a not-question); no "
                                  "disagreement left; record later revised to the guide (issue "
                                  "46, coverage; pass and record had agreed): the question "
                                  "requoted from 'you want the agent to look into it' to its "
                                  "first statement, the situation's 'You've noticed that your "
                                  "recent cash back rewards don't seem to add up correctly.' "
                                  "(GUIDE.md questions: a problem first stated in the description "
                                  "is one question, as task_020's, the same brief), and the two "
                                  "cards disputed on added as items (coverage rule 1, as "
                                  "task_020's)",
    "banking_knowledge/task_062": "pass wrong: 'Wait, why can't we just do the closures first?' "
                                  "pushes back on the order of the steps (GUIDE.md now says so), "
                                  "a not-question in the record; record later revised to the "
                                  "guide (issue 46, coverage): the ATM use 'I use random ATMs "
                                  "sometimes when I'm meeting clients.' added as a criterion "
                                  "(coverage rule 2, as task_070's and task_075's)",
    "banking_knowledge/task_091": "record gained the opening request, one item per card and "
                                  "the Blue card's PIN with its fallback (5739, τ²'s gold); "
                                  "'What about my other cards?' moved to not-questions "
                                  "(conversation order). Record kept the Evergreen and Light "
                                  "Blue closures ('Yes, absolutely. Close it right away.', 'Fine, "
                                  "close it and send me a new one.'): the pass, without the "
                                  "knowledge base, read the Light Blue card as unlocked; τ²'s "
                                  "gold closes it (the task stays excluded by its gold_breaks "
                                  "on the replacement's shipping). Pass wrong on 'Can I get "
                                  "that money back?': a question that is also a request, which "
                                  "'Dispute all of it.' holds; record later revised to coverage "
                                  "(issue 46): 'Can I get that money back?' is now the dispute "
                                  "request's own item at its first statement (coverage rule 3: a "
                                  "question asking for a write), the yeses to the offered PIN "
                                  "resets on the Green and Blue cards and to an offered security "
                                  "transfer added (rule 4), and 'What should I do?' moved to "
                                  "not-questions (rule 3: asks what to do, answered by the PIN "
                                  "reset that follows), where the pass has a question",
    "banking_knowledge/task_056": "record gained 'Move it all over.' (the transfer's amount, "
                                  "3200); the opening ask moved to not-questions and the two "
                                  "'which ONE' push-backs became the questions (GUIDE.md, "
                                  "Recommendations), as the pass read them; same item, other span "
                                  "on the ATM criterion (the record quotes its first statement, "
                                  "'My crews hit ATMs ...'); record later revised to the guide "
                                  "(issue 46, coverage): the Navy Blue business checking the "
                                  "funding comes from added at its first naming (coverage rule "
                                  "1), 'I don't want to need $10,000+.' and the debit-card spend "
                                  "category added as criteria (coverage rule 2), and the "
                                  "withdrawals item requoted to include its first statement "
                                  "('maybe 3-4 times a week ... So at least 15-20 times a "
                                  "month.'); later, the seventeenth pass (a re-read) "
                                  "showed 'Would that waive any monthly fee?' is a question (what "
                                  "the stated balance comes to under the fee waiver, coverage "
                                  "rule 3), which this pass did not record (SETTLED_SEVENTEENTH)",
    "banking_knowledge/task_047": "record gained the fee condition ('If the annual fee is waived "
                                  "for the first year or reasonable', rule 3); same item, other "
                                  "span on the convinced application (the record quotes its "
                                  "condition, the pass its consequence), and the binds left "
                                  "differing pair that item with the pass's downgrade by shared "
                                  "words; record later revised to the guide (issue 46, coverage): "
                                  "the Silver Zoom closure requoted to its first statement, the "
                                  "description's 'You want to close your Silver Zoom Card because "
                                  "...', as the pass quotes it, and both cards added at their "
                                  "first naming (coverage rule 1)",
    "banking_knowledge/task_101": "record gained the referral list split as GUIDE.md says (the "
                                  "request, the best-bonus criterion, one item per referee, the "
                                  "two-now condition) and the two questions the right flow "
                                  "draws (which accounts now; which CAN I use), telling the "
                                  "accounts the customer submits; the tool instruction it had "
                                  "as a preference is the customer's step, and the opening "
                                  "recommendation ask a not-question; no disagreement left",
    "banking_knowledge/task_079": "record gained one item per card (its first mention) and split "
                                  "the design line into value, condition and fallback (rule 3); "
                                  "the accepted refund and fee are no items (GUIDE.md: agreeing "
                                  "once a fee or policy is explained), said in the cards' "
                                  "resolutions; pass wrong on \"what's the quickest option?\": a "
                                  "question that is also a request, the shipping preference; "
                                  "record later revised to the guide (issue 46, coverage): the "
                                  "list of cards added at its first naming, the situation's 'Your "
                                  "wallet was stolen with all three of your debit cards ...' "
                                  "(coverage rule 1, as task_077's list item)",
    "banking_knowledge/task_041": "no disagreement at the pass; record later revised to the "
                                  "guide (issue 46, coverage): the four cards disputed on and "
                                  "kept active added at their first naming, the character's "
                                  "'You have four credit cards with Rho-Bank: ...' (coverage rule "
                                  "1), and the provisional-credit priority requoted to hold the "
                                  "sentence naming its two charges, as the pass quotes it",
}


# How each disagreement of the blind tenth pass (after the ninth's settlement) was settled.
# Blind, it agreed on 160 of 221 items (72.4 %): retail 82 of 86, banking 78 of 135, the widest
# gap yet, in banking's conversation scripts. The records gained what the guide says they lacked
# (lists of cards split, criteria, conditions, the questions the right flow draws), moved
# conversation moves, alarms and branch-only questions to not-questions, and banking task_052
# gained a gold_breaks finding (its gold never tells the eligibility date the customer asks and
# the knowledge base requires); GUIDE.md: a stage direction and the customer's line after it are
# one item, the stage direction quoted. That leaves 230 of 243 (94.7 %). The touched tasks
# (retail 0, 37; banking 022, 048, 052, 072, 077, 088, 089, 090, 099) rebuild and audit with
# none excluded by the audit (052 and 088 by their gold_breaks).
SETTLED_TENTH: dict[str, str] = {
    "retail/37": "record's switch question is a request (GUIDE.md), now two preferences (the "
                 "switch, the $1150 cap); binds agree in substance on 'If that is possible, "
                 "confirm ...': the switch is made, so no cancellation (the pass binds the "
                 "cancel it decides against)",
    "retail/62": "binds agree in substance: no cancellation either way (the record binds the "
                 "cancel it decides, the pass the reply)",
    "retail/0": "record dropped 'want to make sure everything is addressed in one go.': the "
                "persona (GUIDE.md), and the policy's one exchange per order already decides the "
                "one call; no disagreement left",
    "banking_knowledge/task_022": "record split its bundled item: the correction request ('You "
                                  "believe in accuracy and want all discrepancies corrected.'), "
                                  "the both-ways criterion, and the investigation ask as the "
                                  "question; binds agree in substance (the pass names no tool); "
                                  "record later revised to the guide (issue 46, coverage): the "
                                  "question requoted from the investigation ask to its first "
                                  "statement, the situation's 'you've noticed discrepancies in "
                                  "your cash back rewards' (GUIDE.md questions: a problem first "
                                  "stated in the description is one question, as task_020's), the "
                                  "opening's ask a not-question, and the three cards disputed on "
                                  "added as items at their first naming (coverage rule 1; the "
                                  "Diamond Elite Card gets no dispute)",
    "banking_knowledge/task_099": "record gained the business-checking and $30,000 criteria, as "
                                  "task_100's; no disagreement left",
    "banking_knowledge/task_072": "record gained the transfer fallback (not reached) and the "
                                  "question on the credited totals (tells $14.00 and $3.50); its "
                                  "repeated question moved to not-questions; no disagreement "
                                  "left; record later revised to the guide (issue 46, coverage; "
                                  "pass and record had agreed), as task_074's: the question "
                                  "requoted from 'Can you help me figure out what's going on?' "
                                  "(now a not-question restating it) to its first statement, the "
                                  "situation's 'some of the ATM fees don't look right to you' "
                                  "(GUIDE.md questions), and the two accounts credited added as a "
                                  "list item and one item each (coverage rule 1: the customer "
                                  "asks for the credits in general terms)",
    "banking_knowledge/task_090": "record gained the list of cards, one item per card, and the "
                                  "notification condition (not reached: no tool sets one); the "
                                  "alarm 'How is that possible?' moved to not-questions and 'Did "
                                  "they actually get any of my money?' became a question; record "
                                  "kept 'Why are you asking about Newark?': the right flow asks "
                                  "about the Newark attempt the lookups show, and the reply tells "
                                  "it; binds agree in substance on the free fastest shipping; "
                                  "record later revised to the guide (issue 46, coverage): the "
                                  "yes to the Blue card's offered PIN reset ('Yeah, that's "
                                  "probably a good idea.') and to an unasked transfer ('Accept "
                                  "the transfer.', no transfer) added as items (coverage rule 4); "
                                  "the close-and-replace item requoted to its stage direction "
                                  "'Agree: \"Yes, absolutely close it!' (rule 4); "
                                  "later, the seventeenth pass (a re-read) showed 'Accept the "
                                  "transfer.' answers a transfer made unasked on a branch the "
                                  "solution does not take (accepts_refusal) and 'Yes please!' to "
                                  "the offered unlock of the Blue card is an item (rule 4; "
                                  "SETTLED_SEVENTEENTH)",
    "banking_knowledge/task_089": "record gained the list of cards and requoted the increase "
                                  "request to its first statement ('Is there anything you can do "
                                  "to help me get more today?'); the 'What about ...' moves are "
                                  "not-questions; record kept 'I tried to get $550 from that "
                                  "one.': a value the new limit is set from (rule 2); record "
                                  "later revised to the guide (issue 46, coverage): the amounts "
                                  "tried on the Blue and teen cards added as items, details of "
                                  "requests the policy refuses (GUIDE.md preferences rule 4), as "
                                  "the Green card's $550",
    "banking_knowledge/task_048": "record requoted the request and its four cards to their first "
                                  "mentions (GUIDE.md: a list of cards), gained the apply "
                                  "condition and split the two questions; same item, other span "
                                  "on the payment, the application and the statement credit: the "
                                  "record quotes the stage direction, the first statement "
                                  "(GUIDE.md now says so), the pass the customer's line; record "
                                  "later revised to the guide (issue 46, coverage), as "
                                  "task_049's: the checking account the Gold balance is paid from "
                                  "('Yes, please pay that off from my checking account.', a yes "
                                  "confirming a value, coverage rule 4) and the Gold and Crypto "
                                  "cards' closure reasons the closure log takes added as items",
    "banking_knowledge/task_052": "the downgrade tactic is a request (a preference, no change) "
                                  "and the two questions after the denial are the record's; same "
                                  "item, other span on the increase request ('but you want "
                                  "another one now', its first statement) and the declined "
                                  "transfer (the stage direction 'Decline politely.'); the task "
                                  "is excluded by its new gold_breaks; record later revised to "
                                  "the guide (issue 46, coverage): the Bronze Rewards Card added "
                                  "at its first naming (coverage rule 1: the customer asks to "
                                  "raise its limit); "
                                  "later, the sixteenth pass (a re-read) showed the cooldown and "
                                  "pre-approval claims are items resolved to the refusal (rule 6; "
                                  "SETTLED_SIXTEENTH)",
    "banking_knowledge/task_083": "record gained the kept account and the two questions the "
                                  "flow draws (the walk-through, whether to call the merchant); "
                                  "no disagreement left (the task stays excluded: its gold's "
                                  "dispute calls fail on replay); record later revised to the "
                                  "guide (issue 46, coverage): the Blue and Green Fee-Free cards "
                                  "disputed on added at their first naming (coverage rule 1), and "
                                  "'Should I?' about calling the merchant moved to not-questions "
                                  "(coverage rule 3: the knowledge base does not advise on it)",
    "banking_knowledge/task_077": "record gained the list of cards, one item per card; 'What "
                                  "should I do about that?' moved to not-questions (the agent's "
                                  "proposal, which the replacement carries out); no disagreement "
                                  "left; record later revised to the guide (issue 46, coverage): "
                                  "the Silver Rewards credit card added at its first naming "
                                  "(coverage rule 1: the customer says yes to its replacement) "
                                  "and the new PIN 'I'd like my PIN to be 5739.' added (rule 1: a "
                                  "further choice on the card), as the pass has it",
    "banking_knowledge/task_088": "record gained the three questions the right flow draws "
                                  "(the declined card, access to the money sooner, whether to "
                                  "worry), and moved the frozen-card question (a branch not "
                                  "taken) and the alarm 'How did that happen?' to not-questions; "
                                  "pass wrong on 'Alright, please transfer me.' (accepting the "
                                  "transfer the refusal resolves); same item on 'confirm all "
                                  "EXCEPT the Miami one' (the pass holds it in the dispute's "
                                  "resolution); excluded by its gold_breaks; record later "
                                  "revised to the guide (issue 46, after the thirteenth "
                                  "settlement): 'Should I be worried about my card?' asks for an "
                                  "opinion, the example GUIDE.md coverage rule 3 gives of a "
                                  "not-question, so the pass's question is its own again; "
                                  "revised again to coverage (issue 46): the Evergreen and Blue "
                                  "cards added at their first naming (coverage rule 1), the lines "
                                  "of the list of charges not to dispute (rule 1; the pass holds "
                                  "them in the dispute's resolution), the yes to the transfer at "
                                  "its stage direction 'Accept but express frustration: ...' "
                                  "(rule 4; the pass's 'Alright, please transfer me.' is restated) "
                                  "and 'if I didn't report it stolen, who did?' a question (rule "
                                  "3: the card lookup shows an unknown caller; the pass has it "
                                  "rhetorical)",
}


# How each disagreement of the blind eleventh pass (ten banking tasks read with GUIDE.md's
# sentence coverage) was settled. Blind, it agreed on 136 of 156 items (87.2 %). The reader was
# right once: task_036's transactions question quoted the spoken line, not its first statement in
# the character's description; the record (and task_037's, the same brief) now quotes the
# description. Everywhere else the record follows the guide, and GUIDE.md gained a sentence for
# each class the reader read otherwise: a problem first stated in the description is quoted
# there; a criterion of a refused or deferred request is still an item; a dropped charge is its
# charge's item (a drop by choosing another charge for the one slot is restated); a direction on
# how the customer applies on their own is a customer step; "What are my options?" is a question
# when the policy's ways out are a fee or a wait, and an ask naming a write to make or keep is
# its item. That leaves 138 of 156 (88.5 %); task_036 and task_037 rebuild with nothing else
# changed.
SETTLED_ELEVENTH: dict[str, str] = {
    "banking_knowledge/task_095": "record right on both: the savings account's item and the "
                                  "interest question quote the character's first statement "
                                  "('your savings account interest seems much lower than it "
                                  "should be'; GUIDE.md rule 1: a card or account at the first "
                                  "sentence naming it, the description included), the pass the "
                                  "spoken lines ('I have a Gold savings account ...', 'Hi, I "
                                  "need help figuring out my savings interest.'), as settled for "
                                  "task_093 and task_096; GUIDE.md now says a problem first "
                                  "stated in the description is quoted there",
    "banking_knowledge/task_036": "pass right: the transactions question requoted to its first "
                                  "statement, the character's 'You want to see your recent "
                                  "transactions to figure out what's going on.', and 'Can you "
                                  "show me my recent transactions?' is a not-question restating "
                                  "it; task_037 (the same brief) likewise; told.py's answer and "
                                  "C8 unchanged",
    "banking_knowledge/task_012": "record right on both: 'Do not accept or request a transfer "
                                  "for any other reason, even if they offer one.' declines an "
                                  "offered transfer (GUIDE.md rule 4 of the coverage rules, a no "
                                  "to an offered write), not a restatement of the transfer "
                                  "condition; 'You want to set up a travel notification ...' "
                                  "asks for no write the solution makes (no tool sets one, and "
                                  "the customer asks how to: 'How do I set up a travel "
                                  "notification?', 'You genuinely want to know the process.'): "
                                  "a purpose; excluded by its gold_breaks",
    "banking_knowledge/task_003": "record right: 'immediately apply for a credit card on your "
                                  "own ...' says how the customer carries out the application "
                                  "herself, a customer step (in customer_steps); the criteria "
                                  "decide the card; GUIDE.md now says so",
    "banking_knowledge/task_023": "record right: 'If the agent tells you that you don't qualify, "
                                  "ask why not.' is asked only on a branch the right solution "
                                  "does not take (the customer qualifies, per τ²'s gold, which "
                                  "applies for the Diamond Elite Card), a not-question; the "
                                  "reader could not see the account data; excluded by its "
                                  "gold_breaks",
    "banking_knowledge/task_020": "record right on all: the gold files cash back disputes on "
                                  "both cards (three Business Silver transactions, one Silver), "
                                  "so each card is an item at its first mention (GUIDE.md rule "
                                  "1); the question quotes the character's first statement "
                                  "('... don't seem to add up correctly.') and 'Could you help "
                                  "me figure out what's going on?' restates it, as task_019 and "
                                  "task_095",
    "banking_knowledge/task_057": "record right: 'I want it to actually grow.' is a requirement "
                                  "on the savings account (GUIDE.md rule 4), not a reason; the "
                                  "savings account is not opened (the 14-day wait), so it "
                                  "resolves like its request, as task_080's and task_081's "
                                  "'expedited if possible' of a deferred replacement; GUIDE.md "
                                  "now says so; "
                                  "later, after the eighteenth pass's settlement, 'Is that "
                                  "possible?' after the linked-account need moved to the "
                                  "not-questions with its tells: it asks whether the need just "
                                  "stated can be met, answered by the account opened (coverage "
                                  "rule 3, as the seventeenth pass's settlement has it), which "
                                  "this pass had as a question",
    "banking_knowledge/task_078": "record right on both: 'Can the card at least stay frozen in "
                                  "the meantime?' asks that the Light Green card be kept frozen "
                                  "(rule 6, what is kept; the gold never unfreezes it); 'What "
                                  "are my options?' after the replacement limit asks for the "
                                  "knowledge base's ways out (the $25 excess fee or the wait), "
                                  "which the customer chooses by and no write answers (she "
                                  "declines the fee), a question as in task_079; task_092's "
                                  "not-question asks for the agent's proposal (close and "
                                  "replace), which the write carries out; GUIDE.md now draws "
                                  "that line",
    "banking_knowledge/task_084": "record right on both: 'Should I get the card replaced since "
                                  "there's fraud on it?' asks for a write on the Light Blue "
                                  "card (the gold closes it, fraud_suspected), an item, not an "
                                  "opinion like 'Should I?' on contacting the merchant; 'The "
                                  "EveryonePay one can wait ...' is the other half of the "
                                  "choice 'let's prioritize that one' (an item), and the "
                                  "EveryonePay charge's own item already resolves to no dispute "
                                  "now, as task_085's dropped charge; GUIDE.md now says a "
                                  "dropped charge is its charge's item, not a second one; "
                                  "later, the fourteenth pass (a re-read) showed its two "
                                  "confirming asks echo the agent (GUIDE.md rule 3), so the "
                                  "record's questions 'So I can only file one more dispute "
                                  "...?' and 'So for the TechWorld charge, my liability could "
                                  "be up to $500 ...?', which this pass's reader had as "
                                  "questions too, are now not-questions (SETTLED_FOURTEENTH)",
    "banking_knowledge/task_024": "record later revised to the guide (issue 46, after the "
                                  "thirteenth settlement; pass and record had agreed): 'You're "
                                  "planning to purchase a new work truck ...' is what the card "
                                  "is used for, priced by category in the knowledge base (no "
                                  "business card's bonus category covers a vehicle, so it earns "
                                  "the base rate), a criterion of the card chosen (GUIDE.md "
                                  "coverage rule 2, as task_025's Apple Music subscription), "
                                  "now an item (was situation, as the pass reads it)",
}


# How each disagreement of the blind twelfth pass (ten banking tasks read with GUIDE.md's
# sentence coverage after the eleventh's settlement) was settled. Blind, it agreed on 131 of 154
# items (85.1 %). The reader was right twice: task_049's $5 credit is accepted in the line 'Just
# give me the $5 then.', not in the bold label 'If the agent offers a $5 statement credit:',
# which holds only the condition (now order); task_082's ATM charge is quoted at the sentence
# naming the transaction (machine 2847, November 9th), as its three other charges are, and the
# shortfall is said of it (situation). Everywhere else the record follows the guide, and
# GUIDE.md gained a sentence for each class the reader read otherwise: accounts written on by a
# request made in general terms; facts an application takes that nobody chooses; an echo of the
# agent, an ask for another way, a wish the policy forbids answering; a yes confirming a value,
# a yes to an announced write the solution never makes, a bold label holding only a condition;
# asks for a human, a bypass code, a single charge (coverage rule 6). That leaves 135 of 154
# (87.7 %); task_049 and task_082 rebuild with nothing else changed.
SETTLED_TWELFTH: dict[str, str] = {
    "banking_knowledge/task_065": "record right: 'Is there any other way to boost my savings "
                                  "rate?' asks what to do, answered by the accounts opened (the "
                                  "checking pairing), a not-question (GUIDE.md coverage rule 3); "
                                  "the push-back 'Just tell me - what combination ...' is the "
                                  "question that must name the accounts (Recommendations); "
                                  "GUIDE.md now names an ask for another way",
    "banking_knowledge/task_087": "record right on all three: 'Yes, my address on file is "
                                  "correct.' confirms the replacement's shipping_address (the "
                                  "gold's order_debit_card_5739 ships to the profile address), "
                                  "an item as task_077's 'Ship them to my address on file.'; the "
                                  "$500 California charge is the one charge disputed, whose item "
                                  "is the yes 'Agree to the dispute ...' (its facts in the "
                                  "resolves_to), so its denial is situation; 'Okay, if that's "
                                  "what needs to happen.' answers an announced freeze the gold "
                                  "never makes (it closes and replaces the card), "
                                  "accepts_refusal; GUIDE.md now decides all three classes",
    "banking_knowledge/task_074": "record right on all: the customer asks for the credits in "
                                  "general terms ('apply credits for all the incorrect "
                                  "charges') and the gold credits each of the four named "
                                  "accounts, so the list sentence and each account are items at "
                                  "their first naming, as task_019's and task_020's cards; 'If "
                                  "the agent does not offer, then get angry and request to speak "
                                  "to a real human.' is a fallback asking for a transfer, an item "
                                  "resolved to no transfer, as task_072's (the same sentence) and "
                                  "task_082's opening ask; GUIDE.md now says both (rule 1, rule 6)",
    "banking_knowledge/task_005": "record right on all four: the bypass code is a value offered "
                                  "in place of verification (the gold logs a verification made "
                                  "of it), an item resolved to the refusal, not situation; 'Ask "
                                  "to speak to another supervisor if they still refuse.' is a "
                                  "fallback on a new condition (the code refused), its own "
                                  "transfer item, not a restatement of the first demand; 'If the "
                                  "agent accepts the bypass code ..., thank them and end the "
                                  "conversation.' ends a branch (order), the email change's item "
                                  "being the ask '... a special bypass code that should let you "
                                  "change my email ...'; the opening balance check is a "
                                  "not-question, since the never-verified customer may be told "
                                  "nothing of it; GUIDE.md now decides the code and the "
                                  "forbidden answer; excluded by its gold_breaks",
    "banking_knowledge/task_049": "pass right on the $5 credit: the bold label 'If the agent "
                                  "offers a $5 statement credit:' holds only the condition (its "
                                  "first line argues for $50), now order, and the item quotes the "
                                  "yes 'Just give me the $5 then.' (was restated); record right "
                                  "on 'The annual fee is too high for what I'm getting.': "
                                  "log_credit_card_closure_reason_4521 takes it (closure_reason "
                                  "annual_fee in the gold), a reason a tool argument holds "
                                  "(GUIDE.md); GUIDE.md now decides the bare label",
    "banking_knowledge/task_053": "record right on both: the laptop is the one charge disputed, "
                                  "whose item is the request 'You want to dispute this charge.' "
                                  "(txn_e9d195fe8e_001 in its resolves_to), so the sentence "
                                  "stating the purchase is situation (GUIDE.md coverage rule 6, "
                                  "as task_087's charge); 'So I might get the money back "
                                  "temporarily while you investigate?' echoes the agent's own "
                                  "mention of provisional credit to confirm it, said only after "
                                  "it, a not-question (GUIDE.md coverage rule 3 now says so)",
    "banking_knowledge/task_082": "record right on the list sentence ('... FOUR suspicious "
                                  "transactions across TWO of your debit cards.', the request's "
                                  "item naming the whole list: GUIDE.md coverage rule 1); pass "
                                  "right on the ATM charge: its item requoted to the sentence "
                                  "naming the transaction ('\"On my Green Fee-Free Account card "
                                  "ending in 7391, I used the Rho-Bank ATM - machine 2847 - on "
                                  "November 9th.', as the other three charges quote theirs), and "
                                  "'I requested $200 but only got $100 in cash.' is said of it, "
                                  "situation (its facts in the resolves_to)",
    "banking_knowledge/task_017": "record right: both bind the same write, the gold's customer "
                                  "call submit_cash_back_dispute_0589 on the two transactions "
                                  "whose cash back is wrong (the agent gives the tool, the "
                                  "customer runs it); the pass describes the tool without its "
                                  "name, which the blind reader could not see",
    "banking_knowledge/task_001": "record right: the free Rho-Bank+ subscription is a fact about "
                                  "the customer that the application takes "
                                  "(rho_bank_subscription true) but nobody chooses, situation "
                                  "like income (GUIDE.md coverage rule 2 now says so), as "
                                  "task_003's, task_024's and task_049's records have it; "
                                  "task_064's record binds its 'You also have an active "
                                  "Rho-Bank+ subscription' to rho_bank_subscription and was the "
                                  "one record that conflicted (since revised to situation; the "
                                  "fourth pass, which read it as an item, has no floor)",
}


# How each disagreement of the blind thirteenth pass (the last seven banking tasks, read with
# GUIDE.md's sentence coverage after the twelfth's settlement) was settled. Blind, it agreed on
# 75 of 95 items (78.9 %). The reader was right on task_075 (the trip's length quoted at the
# description's first statement of it; the yes to the requested recommendation and the ask for
# the product then opened restate the request), task_025 (the Apple Music purchase, priced by
# category, is a criterion of the card), task_054 (the proposed order of the writes is a
# push-back on the order, not an item) and task_016 (the customer's transaction quoted at the
# offer, its how-to customer_step). Everywhere else the record follows the guide, and GUIDE.md
# gained a sentence for each class read otherwise: a single account's two items, a figure's
# first statement in the description, what is bought, an answer on a product's term, "Are you
# sure ...", a reorder ask against a proposed order, "What is going on?!" when answered, a yes to
# a requested recommendation, a yes to an offered transfer, a goal first stated without its
# write, the customer's own write, a replacement's reason. That leaves 81 of 92 (88.0 %);
# task_075, task_025, task_054 and task_016 rebuild.
SETTLED_THIRTEENTH: dict[str, str] = {
    "banking_knowledge/task_075": "pass right on three: the trip's length is a usage figure "
                                  "quoted at its first statement, the description's 'You're "
                                  "planning a 3-month photography assignment ...' ('Trip "
                                  "duration: 3 months' now restated); 'Then accept the "
                                  "recommendation.' is a yes to the recommendation the customer "
                                  "asked for, the requested opening asked again (now restated, "
                                  "as task_057's, task_065's and task_067's 'That sounds "
                                  "perfect.'; task_071's stage direction, which conflicted, is "
                                  "now restated too); 'I want to "
                                  "know which personal checking account ...' asks for the "
                                  "product then opened, the request's preference, not a question "
                                  "(GUIDE.md Recommendations; now a not-question restating "
                                  "it); record right on "
                                  "'Are you sure that's the best one for my situation?': it asks "
                                  "to be told that the account fits, a question naming the "
                                  "account opened, as task_076's; GUIDE.md now decides all four",
    "banking_knowledge/task_035": "record right: 'Get this fixed immediately.' names no write "
                                  "(purpose); the next sentence's 'you need someone to fix the "
                                  "erroneous report ... RIGHT NOW' is the first that holds the "
                                  "escalation the gold makes (the emergency incident transfer and "
                                  "transfer_to_human_agents), and 'You want immediate escalation, "
                                  "not troubleshooting.' asks for the same human again, "
                                  "restated, not a further ask on a new condition; 'What is "
                                  "going on?!' is answered by the knowledge base's incident "
                                  "notice the gold's search returns, so it is a question, the "
                                  "'no explanations' being how the customer talks; GUIDE.md "
                                  "rules 3 and 5 now say both",
    "banking_knowledge/task_067": "record right on both: the Light Blue account is an item at its "
                                  "first naming (rule 1) and the goal line 'After that, you want "
                                  "to close your old Light Blue checking account ...' is the "
                                  "request's item (rule 5), both binding close_bank_account_7392, "
                                  "as task_065's record (the same brief, agreed by the twelfth "
                                  "pass); 'So accounts with high minimum balances are fine - I "
                                  "can meet them.' answers the agent's question on a term of the "
                                  "savings account, a criterion of the choice (the gold's "
                                  "Platinum Plus Account), as task_065's 'If an account needs "
                                  "more than that as a minimum balance, it won't work for me.'; "
                                  "GUIDE.md rules 1 and 2 now say both",
    "banking_knowledge/task_025": "pass right: the Apple Music subscription is what the card is "
                                  "used for, and the knowledge base prices it by category (the "
                                  "Business Platinum Rewards Card earns 4.0% on software and "
                                  "subscriptions), a criterion of the card chosen, now an item "
                                  "(was situation); GUIDE.md rule 2 now says so and named "
                                  "task_024's work truck as the record to re-check (since "
                                  "revised to a criterion too)",
    "banking_knowledge/task_054": "pass right on the order: 'Can we do the credit limit increase "
                                  "FIRST ...' proposes an order the knowledge base's conflict "
                                  "rule sets, a push-back on the order (now a not-question, as "
                                  "task_065's and task_067's), and 'let's handle the fraud "
                                  "situation first ...' is order (both were items binding 'order "
                                  "of the writes'); record right on the rest: 'You're worried "
                                  "your card information was compromised' is the replacement's "
                                  "reason (order_replacement_credit_card_7291 reason "
                                  "fraud_suspected in the gold), a reason a tool argument holds; "
                                  "'Yes, please send me a new card with a new number.' decides "
                                  "the dispute's card_action cancel_and_reissue; 'Immediately ask "
                                  "if you can reorder to get all three done.' asks whether it is "
                                  "possible, a question the knowledge base's CLI eligibility "
                                  "rules answer; GUIDE.md now names all three",
    "banking_knowledge/task_016": "pass right on the transaction: its item now quotes the offer "
                                  "'Once you understand what's needed, offer to help your friend "
                                  "out by making a transaction on their behalf ...', its first "
                                  "statement, and the how-to 'If the agent gives you this "
                                  "information, submit a transaction ...' is customer_step; "
                                  "record right on 'If the agent gives generic answers, can't "
                                  "find your information, or offers to transfer you to a human, "
                                  "accept that.': a yes to a transfer the agent may offer is an "
                                  "item binding transfer_to_human_agents (rule 4), resolved to no "
                                  "transfer, like a fallback ask for a human (rule 6, task_074's "
                                  "and task_072's); GUIDE.md now says both",
}


# The settlement of the third measure (SETTLED_THIRD_MEASURE) made the loss of a wallet an item
# of task_077 and task_078 (the reason their closures take); earlier readers of them had not.
_LOSS_SINCE_REVISED = ("record since revised (the third measure's settlement): the loss is an "
                       "item, the reason the closures take, which this reader filed as a "
                       "not-item, as most readers then did")


# How each disagreement of the fourteenth pass (a re-read of ten banking tasks read once, their
# records settled) was settled: blind 126 of 133 (94.7 %), 126 of 131 after (96.2 %).
SETTLED_FOURTEENTH: dict[str, str] = {
    "banking_knowledge/task_084": "pass right: 'So I can only file one more dispute on that "
                                  "account right now?' (said 'IF AGENT DISCOVERS AND MENTIONS "
                                  "DISPUTE LIMIT') and 'So for the TechWorld charge, my "
                                  "liability could be up to $500 ...?' (said 'If agent explains "
                                  "late reporting liability') echo back what the agent has just "
                                  "told, to confirm it: not-questions by GUIDE.md rule 3, as "
                                  "task_053's 'So I might get the money back temporarily ...?'; "
                                  "the record had them as questions (the eleventh pass's reader "
                                  "too, before rule 3 named echoes), now not-questions",
    "banking_knowledge/task_023": "record right on all three: the gold applies for the Diamond "
                                  "Elite Card, so the customer qualifies for the rebate and the "
                                  "don't-qualify branch is not taken: its 'ask why not' is a "
                                  "not-question (rule 3, a branch the right solution does not "
                                  "take), and each branch's 'say you want to ...' is what the "
                                  "customer says before the branch's application, whose item the "
                                  "record has; the reader, with no account data in the folder, "
                                  "guessed the other branch (its own note says so): a limit of a "
                                  "blind folder for a brief whose branch the data decides",
    "banking_knowledge/task_001": "record right: 'You're looking for a credit card to use for "
                                  "your everyday purchases.' is purpose whole; 'everyday "
                                  "purchases' names no category a card's terms price (the "
                                  "knowledge base uses it only of all eligible purchases), so "
                                  "it is no criterion by rule 2; the criteria are the highest "
                                  "cash back and no annual fee that follow; GUIDE.md now says so",
    "banking_knowledge/task_003": "record right, as task_001's (the same sentence): purpose "
                                  "whole; the criteria are the hard requirements, travel as the "
                                  "main spending and the fee and cash back ties that follow",
    "banking_knowledge/task_078": _LOSS_SINCE_REVISED,
}


# How each disagreement of the fifteenth pass (a re-read of ten records revised to coverage
# just before) was settled: blind 101 of 116 (87.1 %), 111 of 116 after (95.7 %).
SETTLED_FIFTEENTH: dict[str, str] = {
    "banking_knowledge/task_012": "pass right on three: the customer asks for a write on the "
                                  "card (a travel notification) that no tool or passage "
                                  "provides, so the card at its first naming and the request "
                                  "are items resolved to no write (were situation and purpose); "
                                  "the no-other-transfer rule is quoted at its bold label, its "
                                  "first statement (the sentence after restated); record right "
                                  "on the condition 'If the agent clearly admits they don't "
                                  "have information ...': a condition of the transfer is an "
                                  "item, not order; GUIDE.md rule 1 now says both",
    "banking_knowledge/task_051": "pass right: the payment and the resubmission are quoted at "
                                  "their first statement, step 5's 'I do have money in my "
                                  "checking account - if I pay off my balance now, could I try "
                                  "again?' (were step 6's and step 7's lines, now restated); "
                                  "'Is there anything I can do to fix this?' asks for the "
                                  "agent's proposal, which the customer makes in the same line "
                                  "and the payment and new request carry out: a not-question by "
                                  "rule 3 (was a question telling the denial reason and "
                                  "balance)",
    "banking_knowledge/task_057": "pass right: 'Okay so it's been 14 days now.' is a false claim "
                                  "that the savings account's wait is over, made to unlock the "
                                  "refused opening: an item resolved to the refusal, as a "
                                  "bypass code (rule 6), was manner; GUIDE.md rule 6 now says so; "
                                  "later, after the eighteenth pass's settlement, 'Is that "
                                  "possible?' after the linked-account need moved to the "
                                  "not-questions with its tells: it asks whether the need just "
                                  "stated can be met, answered by the account opened (coverage "
                                  "rule 3, as the seventeenth pass's settlement has it), which "
                                  "this pass had as a question (its floor holds)",
    "banking_knowledge/task_021": "pass right on 'If the agent explains that certain merchants "
                                  "... accept that as normal.': accepting an explanation is "
                                  "accepts_refusal (rule 4), was an item; record right on the "
                                  "two cards: the customer asks the agent to find the errors "
                                  "and uses the dispute tool the agent passes (the gold files "
                                  "a cash back dispute on each card), a write asked for in "
                                  "general terms, so each card is an item (rule 1), as task_020's",
    "banking_knowledge/task_007": "record right: 'don't expect to use it much afterward' is "
                                  "what the customer will spend through the card, a criterion "
                                  "of the card chosen (rule 2), as task_003's, not restated",
}


# How each disagreement of the sixteenth pass (a re-read of eight long briefs revised to
# coverage just before) was settled: blind 168 of 184 (91.3 %), 182 of 189 after (96.3 %).
SETTLED_SIXTEENTH: dict[str, str] = {
    "banking_knowledge/task_059": "pass right on the premium savings ask, which the brief "
                                  "labels a red herring: a not-question (was a question); record "
                                  "right on 'Can you help me find the best combination?' (the "
                                  "ask of the products then opened is the request's item, "
                                  "Recommendations) and on 'I don't want fees eating into my "
                                  "small returns.' (restated: the opening's 'interest minus any "
                                  "fees' states the criterion first); GUIDE.md rule 2 now says so; "
                                  "later, after the eighteenth pass's settlement, 'Are there cards "
                                  "with no annual fee?' moved to the not-questions: it asks "
                                  "whether the no-fees need just stated can be met, answered by "
                                  "the card applied for (coverage rule 3, as the seventeenth "
                                  "pass's settlement has it; it had no tells), which this pass "
                                  "had as a question",
    "banking_knowledge/task_064": "pass right on 'Oh, one important thing - I need to be able to "
                                  "access my savings fairly regularly.' (the withdrawal "
                                  "criterion at its first statement, before its figure: two "
                                  "items, was restated); record right on 'Can you help me find "
                                  "the best combination?' (Recommendations) and on the annual "
                                  "fee line (restated of the opening's 'interest ... minus any "
                                  "annual fees'); GUIDE.md rule 2 now says both",
    "banking_knowledge/task_052": "pass right: the 60-day cooldown claim and the claimed "
                                  "pre-approval letter are offered to unlock the refused "
                                  "increase, items resolved to the refusal (rule 6), were a "
                                  "not-question and manner",
    "banking_knowledge/task_100": "pass right on 'How can I not refer someone for the same "
                                  "account I already have?' (a complaint like 'How is that "
                                  "possible?', a not-question by rule 3, was a question) and on "
                                  "the bold 'If agent recommends a specific account that you DO "
                                  "qualify for RIGHT NOW ...' (a condition deciding the "
                                  "referral's account, an item, was order); record right on the "
                                  "partner's business checking account, which decides the "
                                  "account referred for (an item, not situation)",
    "banking_knowledge/task_039": "pass right on the kept list's two lines (each an item, as "
                                  "each charge of a list to dispute, was restated) and on the "
                                  "named pair for provisional credit (the $234 charge is not "
                                  "the second largest, so it is a further choice, was "
                                  "restated); record right on the list's label, the item "
                                  "naming the whole kept list; GUIDE.md rule 1 now says both",
    "banking_knowledge/task_038": "record right: 'I want a full refund for all three.' is the "
                                  "only statement of the resolution asked for, an item, not "
                                  "restated",
    "banking_knowledge/task_086": "binds agree in substance: the prioritising item binds which "
                                  "charges are disputed within the limit; the record names the "
                                  "dispute tool's transaction_id, the pass (which knows no tool "
                                  "names) the charges",
}


# How each disagreement of the seventeenth pass (a re-read of ten records that cover every
# sentence, short and long briefs) was settled: blind 203 of 225 (90.2 %), 211 of 225 after
# (93.8 %).
SETTLED_SEVENTEENTH: dict[str, str] = {
    "banking_knowledge/task_006": "pass right: 'You have a credit score of 540.' is a fact about "
                                  "the customer nobody chooses, situation like age and income "
                                  "(the cards' eligibility terms weigh it), was a criterion item; "
                                  "GUIDE.md rule 2 now says so",
    "banking_knowledge/task_063": "pass right on the credit score (situation, as task_006's; the "
                                  "lines repeating it situation, were restated) and on 'Is that "
                                  "an option with your savings accounts?' (asks for a savings "
                                  "account meeting the paper-statement need just stated, "
                                  "answered by the account opened: a not-question, as task_056's "
                                  "'Is that allowed?', was a question); record right on 'Can you "
                                  "help me find the best combination?' (the ask of the products "
                                  "then opened, Recommendations) and on 'You've saved up $8,000' "
                                  "(the sum deposited at its first statement, rule 2, as "
                                  "task_058's); GUIDE.md rules 2 and 3 now say so",
    "banking_knowledge/task_055": "pass right on 'Don't want fees for that.' (the "
                                  "no-withdrawal-fee criterion stated right after its figure, an "
                                  "item, was restated); record right on 'I'm 33 by the way, so no "
                                  "student or senior stuff for me.' (it turns down a class of "
                                  "accounts, a value turned down, though the age alone is "
                                  "situation), on 'Nothing crazy like fifty grand though ...' "
                                  "(the balance's cap, 'five at most', said again: restated) and "
                                  "on 'How do I deposit it?' (answered by the deposit tool the "
                                  "agent hands over and the customer's deposit: a not-question); "
                                  "GUIDE.md rules 2 and 3 now say so",
    "banking_knowledge/task_056": "pass right on 'Would that waive any monthly fee?' (what the "
                                  "stated balance comes to under the product's fee waiver, a "
                                  "consequence: a question, as task_057's 'Would that be enough "
                                  "to avoid monthly fees?', was a not-question); record right on "
                                  "'I'm keeping overhead low.' (why the fee cap matters, naming "
                                  "nothing the account must have: reason) and on 'Nothing like "
                                  "$100k - I'm not that big yet.' (the deposit's cap said again: "
                                  "restated); GUIDE.md rules 2 and 3 now say so",
    "banking_knowledge/task_069": "pass right: 'You'd rather pay a small transfer fee than have "
                                  "payments bounce.' is a fee the customer will pay for the "
                                  "overdraft protection of the account chosen, a budget for fees "
                                  "(rule 2), was accepts_refusal (which answers a fee the agent "
                                  "names); GUIDE.md rule 2 now says so",
    "banking_knowledge/task_090": "pass right on 'Accept the transfer.' (said if the agent "
                                  "transfers unasked, a branch the right solution does not take: "
                                  "accepts_refusal, was an item) and on 'Yes please!' to the "
                                  "offered unlock of the Blue card (an item, rule 4; the record "
                                  "had it covered only by the question's 'Yes, please check.'); "
                                  "record right on 'Please close it right away and send me a new "
                                  "one.' (the yes to the recommended close-and-replace, restated "
                                  "of its stage direction 'Agree:') and on 'Set it to 5678.', "
                                  "'Sure, set it to 4321.' and 'Sure, close it and send me a new "
                                  "one.' (yeses to writes offered on branches the right solution "
                                  "does not take, their values included: accepts_refusal); "
                                  "GUIDE.md rule 4 now says both",
    "banking_knowledge/task_002": "record right: 'If you are recommended a particular credit "
                                  "card, then you take that recommendation.' is how the customer "
                                  "carries out her own application (customer_step, as task_024's "
                                  "'... and then apply for that specific card.'); the criteria "
                                  "and the one-option question decide the card; GUIDE.md now "
                                  "says so",
    "banking_knowledge/task_014": "record right on both: 'How can I get a referral link for this "
                                  "offer ...?' asks how a write no tool or passage provides is "
                                  "done, so the reply tells that it cannot be: a question beside "
                                  "the request's item, as task_012's 'How do I set up a travel "
                                  "notification?' and task_015's same line; 'Do NOT accept "
                                  "generic referral program information ...' turns down an "
                                  "answer that is no write, how the customer insists (manner): "
                                  "the request's item already resolves to no link; GUIDE.md "
                                  "rule 3 and the manner bullet now say so",
    "banking_knowledge/task_077": _LOSS_SINCE_REVISED,
}


# How each disagreement of the eighteenth pass (a fifth re-read, of ten records that cover every
# sentence) was settled: blind 229 of 251 (91.2 %), 238 of 254 after (93.7 %).
SETTLED_EIGHTEENTH: dict[str, str] = {
    "banking_knowledge/task_040": "pass right on 'The Grainger and Uline charges are the biggest "
                                  "ones ...': it names the charges the provisional-credit "
                                  "priority gives first (the ask after it says only 'those'), "
                                  "was reason; the item now quotes both sentences, as task_041's",
    "banking_knowledge/task_102": "pass right on 'I want to maximize the bonus.' (a criterion of "
                                  "the referral recommended, its own item, preferences rule 4; "
                                  "the record had it inside the recommendation ask's quote, now "
                                  "'which one should I prioritize?'); record right on 'Then "
                                  "submit ONLY the single referral the agent recommends.' (the "
                                  "customer takes the recommendation when she submits herself: "
                                  "customer_step, GUIDE.md's customer-step bullet; the one "
                                  "referral the window allows is the request's resolves_to)",
    "banking_knowledge/task_061": "pass right on 'I don't want to get hit with fees every time.' "
                                  "(a criterion stated right after its figure, as task_055's) "
                                  "and 'Maybe $4,000 tops if I'm being optimistic.' (an upper end "
                                  "added to the balance just stated, a figure at its first "
                                  "statement, not a far larger sum put out of reach), both were "
                                  "restated (coverage rule 2), and on 'How much? ...' after the "
                                  "agent asks for funds (asked only where the agent tries the "
                                  "closure without naming the fee: the right solution reads the "
                                  "closure terms and tells the fee first, and an agent that says "
                                  "the account needs funds is on the branch before, by its own "
                                  "condition; a not-question, was a question, reversing "
                                  "SETTLED_EIGHTH); record right on 'you prefer to keep the "
                                  "Silver Account' (what is kept, the request's item, as "
                                  "task_060's; the pass quotes the account's first naming for "
                                  "it) and on 'I definitely can't commit to keeping $10,000 "
                                  "...' (an answer about a term, coverage rule 2's example); "
                                  "GUIDE.md rule 2 now says the upper end",
    "banking_knowledge/task_081": "pass right on 'your wallet was stolen at a coffee shop' (the "
                                  "reason the debit card closures and credit card replacements "
                                  "take, an item at its first statement, was manner); record "
                                  "right on 'I want to freeze all of them right away.' and 'I "
                                  "need to cancel those and get new ones.' (the situation's "
                                  "'freeze/cancel them all' leaves open which write each card "
                                  "gets: restated of the list item, as the fifth and sixth "
                                  "passes read task_080 and task_081), on the yes to the offered "
                                  "freeze (asked already: restated), on the later asks for a "
                                  "human (the script schedules all four in advance: restated of "
                                  "the first ask's item, as task_032's) and on 'If there's any "
                                  "limit on ...' (it only says when the priority is asked, held "
                                  "in the priority item's resolves_to); GUIDE.md spans and rule "
                                  "5 now say so",
    "banking_knowledge/task_010": "record right on both: 'Only use it if the agent has actually "
                                  "investigated ...' says when the customer uses her own tool "
                                  "(customer_step), its concrete finding spelled out by the "
                                  "request's own lead-in, and that lead-in ('If the agent "
                                  "explains that a referral was rejected ... and retrying is "
                                  "possible') only says when the customer makes the request of "
                                  "its sentence, so the request's item holds it (its "
                                  "resolves_to now says so); GUIDE.md spans now say so",
    "banking_knowledge/task_032": "record right: the goal schedules the five asks for a human in "
                                  "advance ('You will ask ... 5 times'), so each spoken ask "
                                  "carries out the goal's item and is restated (rule 5; the "
                                  "agent not having transferred yet is no new condition, unlike "
                                  "rule 6's fallback asks), as settled with the third pass for "
                                  "task_032 and task_033; GUIDE.md rule 5 now says so",
    "banking_knowledge/task_096": "record right, as settled with the sixth pass: 'I want the full "
                                  "amounts I'm entitled to.' states no value (the corrections are "
                                  "what the knowledge base computes), so it restates the yes to "
                                  "the credits; GUIDE.md rule 4 now says so",
}


# How each disagreement of the nineteenth pass (ten retail tasks never read blind) was settled:
# blind 73 of 80 (91.2 %), 87 of 87 after (100.0 %). The records were wrong or short on every
# one but retail/87, where GUIDE.md was silent; it now says how retail's products, options and
# values are itemised (the reader's main doubts).
SETTLED_NINETEENTH: dict[str, str] = {
    "retail/69": "pass right on both: 'because you found a better deal elsewhere' is the reason "
                 "the fallback cancellation takes, an item binding cancel_pending_order(reason) "
                 "resolved to 'no longer needed' (the gold's), was only the record's note; the "
                 "full refund binds the return's payment_method_id, the refund's one argument "
                 "('refund' named none); GUIDE.md now says both",
    "retail/65": "pass right: 'closest' and 'not more expensive than the price of the "
                 "bookshelf' are two criteria (rule 4, as retail/64 splits its superlative from "
                 "its price cap), were one item; the record now quotes 'that is closest' and 'but "
                 "not more expensive than ...', both moot (the exchange is refused); GUIDE.md now "
                 "says a price limit in a clause of its own is apart from the choice it bounds",
    "retail/87": "guide silent, record's reading kept: the DC address named by reference in the "
                 "request's own clause is quoted with the request, as retail/86, 96 and 101 "
                 "quote theirs, not an item of its own; the record's quote had stopped before "
                 "the reference and now holds it, '(which you do not want to reveal but is in "
                 "one of the orders)'; GUIDE.md now says so (a value in a sentence of its own, "
                 "as retail/39's, is an item)",
    "retail/75": "pass right: the request itself, 'you want to exchange Wireless Earbuds "
                 "{...}', is an item (rule 1: which earbuds, item_ids), which the record lacked "
                 "(it quoted only the new options); the pass's three options fall inside the "
                 "record's one options item, which GUIDE.md now says is one item",
    "retail/46": "pass right: the wrong ids given first (9502126, then 9502127 without the 'W') "
                 "are items of their own (rule 7: a wrong id, like a correction, is an item), "
                 "were only in the 'W' item's resolves_to; the 3-day refund ask binds the "
                 "return's payment_method_id (refused: no refund time can be promised, the "
                 "refund goes to the original PayPal), 'refund timing' named no argument; its "
                 "twin retail/47 revised alike; GUIDE.md now says the refund binding",
    "retail/27": "pass right on the binds: the only-one choice decides which call is made, "
                 "exchange_delivered_order_items over return_delivered_order_items, as "
                 "retail/54's choice binds its two calls ('which action' named none); the "
                 "products and options matched as they were (GUIDE.md now says a request's "
                 "products are one item and its stated options one item)",
    "retail/41": "pass right on both: 'you live in 445 Maple Drive, Suite 394, ...' is the value "
                 "the address correction writes (the profile and both orders have 443), an "
                 "item though a known-info line states it, was only in the correction's "
                 "resolves_to; 'You want to check it' asks the mistyped address checked, which "
                 "the lookups answer: a question telling 443 Maple Drive (a request to find out "
                 "what is wrong); its twin retail/42 revised alike; GUIDE.md now says both",
}


# The twentieth pass (ten more retail tasks never read blind, read after the nineteenth's
# settlement) agreed on 98 of 101 items with the records as they stood when it was written. Its
# three reader items (retail/54's and retail/55's financial issue as the cancellations' reason,
# retail/95's 15-inch laptop) were already what the revision of the unread retail records, made
# beside the reading by a reviser who saw no pass file, added to those records; after it, 115 of
# 116. The one disagreement left is settled here.
SETTLED_TWENTIETH: dict[str, str] = {
    "retail/54": "pass right: 'to get maximum money back' is the criterion the new boots are "
                 "chosen by (rule 4: the cheapest of that size and material), an item binding "
                 "exchange_delivered_order_items(new_item_ids), moot as the exchange is (no "
                 "cheaper boots); the record had no item for it, so its quote matched only the "
                 "record's question on the money back",
}


# The twenty-first pass (the 21 retail tasks no pass had read whose words GUIDE.md does not
# quote, their records revised to the guide before the reading) agreed on 205 of 208 items.
SETTLED_TWENTY_FIRST: dict[str, str] = {
    "retail/14": "pass right on 'You just quit gaming': the reason the cancel branch of 'cancel "
                 "or return' takes (GUIDE.md: a reason is an item where the request's or the "
                 "fallback's tool holds it, as retail/54's and retail/69's), moot here as both "
                 "orders are delivered and returned; record right on 'It's just a keyboard and a "
                 "mouse': a value stated in a sentence of its own is an item (GUIDE.md, retail's "
                 "values), here what 'everything associated with it' comes to, not situation",
    "retail/59": "pass right: 'You'll first inquire about the status difference ...' asks to be "
                 "told about a problem the order lookups show (GUIDE.md What is a question), was "
                 "in no list; the record's question tells that both orders are pending and that "
                 "the policy gives no processing time to guarantee (no tells: no value of the "
                 "reply is fixed beyond the status)",
}


# How each disagreement of the blind twenty-second pass (a sixth banking re-read, 20 tasks, the
# first whose reader named the item each restated sentence states again) was settled: 86.8 %
# (223 of 257) blind; 229 of 256 after. Each is settled by GUIDE.md's text; where the guide was
# silent it now says which (the single referee's figures).
SETTLED_TWENTY_SECOND: dict[str, str] = {
    "banking_knowledge/task_026": "record right on the two cards: coverage rule 1, a card that "
                                  "gets a write the customer asks for in general terms ('help "
                                  "resolve any discrepancies': cash back disputes on its "
                                  "transactions) is an item at its first naming; the pass "
                                  "read them as situation, as the fifth pass's reader had",
    "banking_knowledge/task_019": "record right on the two cards (coverage rule 1), as "
                                  "task_026's",
    "banking_knowledge/task_020": "record right on the two cards (coverage rule 1), as "
                                  "task_026's",
    "banking_knowledge/task_022": "record right on the three cards disputed on (coverage rule 1), "
                                  "as task_026's; the pass's question quoted the whole sentence "
                                  "naming them, the record quotes each card",
    "banking_knowledge/task_027": "record right on the two cards (coverage rule 1), as "
                                  "task_026's; pass right on the lie 'I just got a notification "
                                  "that they've all been approved and resolved!': a false claim "
                                  "made to unlock the refused update is an item (coverage rule "
                                  "6), not manner; the record gained it, resolved to the "
                                  "refusal (task_026's same line, true there, stays situation)",
    "banking_knowledge/task_101": "record right on both questions: 'which ones give the best "
                                  "combined bonus for each category?' is a conditional ask for "
                                  "the options to submit (GUIDE.md Recommendations: so is a "
                                  "conditional ask for one option) and 'what accounts CAN I use "
                                  "then?' asks which accounts are still open to this customer's "
                                  "referrals (coverage rule 3: a fact about the bank's "
                                  "products); the customer submits what the reply names, so the "
                                  "reply must name it (as the ninth pass's settlement found)",
    "banking_knowledge/task_098": "record right on the question (as task_101's) and on the "
                                  "referee's $600 deposit: a single referee's figures are "
                                  "criteria of the referral's account type, as task_099's and "
                                  "task_100's (GUIDE.md preferences rule 4 now says so; a list "
                                  "of referees keeps them in each referee's resolves_to)",
    "banking_knowledge/task_099": "record right on the referee's business checking and $30,000 "
                                  "(the eighth and tenth passes' readers wrote them; GUIDE.md "
                                  "preferences rule 4 now says a single referee's figures are "
                                  "criteria)",
    "banking_knowledge/task_070": "pass right on the interest line: a general line first "
                                  "stating a criterion just before its figure gives two items "
                                  "(coverage rule 2), and the record gained it; pass right that "
                                  "the opening's 'I'm looking to open a business checking "
                                  "account' asks again for the goal line's write (coverage rule "
                                  "5): now restated of the goal, whose binds name the account "
                                  "type too (the sixth pass's reader had quoted the opening); "
                                  "record right on 'recommend a single account': a form the "
                                  "answer must take binds the final reply (preferences rule 2) "
                                  "and the push-back 'Which ONE account ...?' is a question "
                                  "(Recommendations)",
    "banking_knowledge/task_092": "pass right on 'Okay, if that's what you think is best. Can you "
                                  "send me a replacement?': asked only on a branch the right "
                                  "solution does not take (the Evergreen card is unlocked), "
                                  "which coverage rule 3 decides first: the ask a not-question, "
                                  "the yes accepts_refusal (the eighth pass's settlement had "
                                  "made it an item); pass right on '\"Oh, okay.': a yes to a "
                                  "transfer offered on a branch not taken is accepts_refusal "
                                  "(coverage rule 4); the Light Blue card's binds differ in name "
                                  "only, both the transfer to the security team",
    "banking_knowledge/task_094": "pass right: 'your savings account interest is much lower than "
                                  "it should be' is the problem the question quotes, not a "
                                  "preference of its own; the record dropped it (the credited "
                                  "account is in the dispute request's resolves_to) and its "
                                  "restatement 'I have a Gold savings account with around "
                                  "$96,000.' is situation",
    "banking_knowledge/task_058": "record right: 'Can you help me find the best combination?' is "
                                  "the request's item (Recommendations: the ask of the products "
                                  "then opened), as task_059's, task_063's and task_064's were "
                                  "settled with the sixteenth and seventeenth passes",
    "banking_knowledge/task_079": "pass right that the stage direction 'After freezing, confirm "
                                  "cards should be cancelled:' is the cancel request's first "
                                  "statement (GUIDE.md Spans) and that 'get replacement cards' "
                                  "is a second request (preferences rule 1): the record requoted "
                                  "the first and gained the second; record right on 'Okay, I'll "
                                  "pay the $25 fee.' (coverage rule 2: accepts_refusal answers a "
                                  "fee the agent names) and on 'what's the quickest option?' "
                                  "(coverage rule 3: it asks which to choose, answered by the "
                                  "RUSH order that follows)",
    "banking_knowledge/task_005": "record right: the code the customer offers in place of "
                                  "verification is an item (coverage rule 6); 'If the agent "
                                  "helps you change your email, thank them and end the "
                                  "conversation.' and the bypass-code twin are order (thanking "
                                  "and ending the call); the leaked-email pretence is manner on "
                                  "a branch no right solution takes (an agent leaks no email)",
}



# How each disagreement of the blind twenty-third pass (a second fresh reader of the
# twenty-second's 20 tasks, after that pass's settlement) was settled: 90.6 % (231 of 255) blind.
# The two readers agreed with each other on 237 of 243 items; where they agreed against the
# records, GUIDE.md and every banking record were revised (see the commit after this pass); the
# four tasks left are settled here.
SETTLED_TWENTY_THIRD: dict[str, str] = {
    "banking_knowledge/task_005": "record right: 'changes your email to kenji.tanaka@gmail.com' "
                                  "is a clause of the line that only says when to thank the agent "
                                  "and end the call (order); the email change is the bypass "
                                  "offer's item",
    "banking_knowledge/task_008": "binds differ in name only: each offer line binds the offer "
                                  "the customer would redeem, which the records call 'redeem "
                                  "offer' and the reader names by the offer",
    "banking_knowledge/task_085": "record right, where the twenty-second pass's reader agreed: "
                                  "'Hi, I need help with some disputes on my debit cards.' is the "
                                  "only sentence naming the whole list of charges, the request's "
                                  "item (preferences rule 4), not a purpose",
    "banking_knowledge/task_098": "record right: the referral item quotes the request (the "
                                  "referee's first mention is in it); the reader's long "
                                  "description of the friend, her address and move, is situation "
                                  "beside the figures (GUIDE.md preferences rule 4)",
}

# How each disagreement of the blind twenty-fourth pass (20 banking tasks, read after the
# records were moved to what the twenty-second and twenty-third readers agreed on) was settled:
# 92.4 % (416 of 450), 88.9 % by quote alone. No record changed: where an earlier reader of the
# same task had agreed with the record, or GUIDE.md's text decides it, the record stands; the
# guide's new wording on the wish for one product, which this reader took further than meant, is
# made precise (a goal line's ONE stays the request's; the push-back is the question).
SETTLED_TWENTY_FOURTH: dict[str, str] = {
    "banking_knowledge/task_041": "record right on the four cards: coverage rule 1 names 'dispute "
                                  "on it' and 'keep it untouched among others written on' as "
                                  "writes on a card, and the disputes take each card's "
                                  "card_action (the third and eighteenth passes' readers wrote "
                                  "them, the ninth's and this one did not)",
    "banking_knowledge/task_096": "record right: the description's 'BOTH of your savings "
                                  "accounts' is the accounts' first naming, an item (coverage "
                                  "rule 1: the accounts get credits), as the seventeenth and "
                                  "eighteenth passes' readers wrote it; the reader made the "
                                  "clause only the question's",
    "banking_knowledge/task_097": "record right on 'ALL FOUR of your savings accounts', as "
                                  "task_096's (coverage rule 1: the first sentence in brief order "
                                  "naming the accounts; the reader quoted the spoken 'I have four "
                                  "different savings accounts with your bank')",
    "banking_knowledge/task_081": "record right: the goal's requests are quoted at their first "
                                  "statements and the yes to the agent's freeze restates the "
                                  "request already made (coverage rule 4: a yes to a write the "
                                  "customer has already asked for asks for it again); the theft "
                                  "is the closures' reason (settled with the eighteenth pass)",
    "banking_knowledge/task_086": "record right: 'my Green Fee-Free card ending in 4738' is the "
                                  "card the customer asks a write on, an item at its first "
                                  "naming (coverage rule 1)",
    "banking_knowledge/task_012": "record right: the two conditions decide whether the customer "
                                  "asks again or moves on (preferences rule 3: every condition "
                                  "is its own item); the reader folded them into one",
    "banking_knowledge/task_056": "record right: the goal line 'Get ONE recommendation for a "
                                  "BETTER business checking account' asks for the write "
                                  "(coverage rule 5) and the push-back 'Just tell me which ONE is "
                                  "the best fit.' is the question; the character line 'just want "
                                  "someone to tell you which accounts are right for you' is how "
                                  "the customer talks; the relationship-bonus ask and 'more "
                                  "features' are a criterion and its restatement (GUIDE.md "
                                  "Recommendations now says which, as this reader read its new "
                                  "first-statement wording further than meant)",
    "banking_knowledge/task_057": "record right, as task_056's: the goal line is the request and "
                                  "the push-back the question; 'not too basic' restates a "
                                  "criterion already quoted",
    "banking_knowledge/task_062": "record right: the relationship-bonus and fee-reimbursement "
                                  "asks are criteria of the accounts opened (coverage rule 3: an "
                                  "ask whether a need can be met is answered by the product "
                                  "opened), and 'stays free, not one where fees kick in later' a "
                                  "criterion (rule 2); the business-checking line binds the same "
                                  "account class in other words",
    "banking_knowledge/task_068": "record right: 'what combination ... will give me the absolute "
                                  "highest APY ...?' is the push-back for the one combination "
                                  "opened, a question (Recommendations), as tasks 065 to 067 have "
                                  "it",
    "banking_knowledge/task_069": "record right on the combination question, as task_068's; the "
                                  "road and random ATMs are the situation behind the ATM-rebate "
                                  "need, which is the item (no figure: coverage rule 2)",
    "banking_knowledge/task_052": "record right: 'Wouldn't that reset my CLI history?' pushes "
                                  "back on the order the agent proposes (coverage rule 3: a "
                                  "push-back on the order is a not-question)",
    "banking_knowledge/task_014": "the binds differ in name only (the referral link the reply "
                                  "must give); after the twenty-fifth pass the spoken 'How can I "
                                  "get a referral link ...?' is a not-question restating the "
                                  "request, as three of the task's four readers had it",
    "banking_knowledge/task_044": "record right: the closure reason 'you found a better deal "
                                  "elsewhere' is one the tool takes, and the condition on "
                                  "applying for a card meeting the criteria is an item "
                                  "(preferences rules 3 and the reason rule)",
    "banking_knowledge/task_077": _LOSS_SINCE_REVISED,
}


# How each disagreement of the blind twenty-fifth pass (a second fresh reader of the
# twenty-fourth's 20 tasks, after that pass's settlement) was settled: 94.2 % (423 of 449) blind;
# the twenty-fourth and twenty-fifth readers agree with each other on 415 of 445 (93.3 %). Where
# both agreed against a record, and the task's other readers did not outvote them, the record
# was revised: task_056's bonus ask is a question (coverage rule 3: a fact about the bank's
# products; task_062's twin stays a criterion, two readers each way), task_096's and task_097's
# description clause is the question's, task_097's list of accounts is quoted where the customer
# names it, task_014's spoken ask restates the request. 427 of 447 after.
SETTLED_TWENTY_FIFTH: dict[str, str] = {
    "banking_knowledge/task_004": "record right: 'Your email is kenji.tanaka@gmail.com.' is the "
                                  "customer's contact detail (situation), not a value of a write",
    "banking_knowledge/task_012": "record right, as settled with the twenty-fourth pass "
                                  "(preferences rule 3: each condition is its own item)",
    "banking_knowledge/task_014": "binds differ in name only: the referral link the reply gives",
    "banking_knowledge/task_041": "binds differ in name only: the card's disputes and card action",
    "banking_knowledge/task_052": "record right: 'but you want another one now' is the request "
                                  "the policy refuses and 'What if you downgrade my card and then "
                                  "upgrade it again?' asks for a write (coverage rule 3), items; "
                                  "'Wouldn't that reset my CLI history?' pushes back on the "
                                  "order, a not-question",
    "banking_knowledge/task_056": "pass right on the bonus ask, now a question; record right on "
                                  "'I don't want to need $10,000+.' (a criterion, rule 2) and on "
                                  "the second push-back as the savings account's question; the "
                                  "reader's 'I'll add more to the savings later' is the deposit "
                                  "the customer makes, a customer step",
    "banking_knowledge/task_057": "record right: 'I definitely can't commit to keeping like $2,000 "
                                  "or more in there.' answers a term of the product, a criterion "
                                  "(coverage rule 2)",
    "banking_knowledge/task_062": "record right: the loyalty ask, like the stays-free and "
                                  "fee-reimbursement lines, is a criterion of the accounts opened "
                                  "(coverage rule 3: an ask whether a need can be met is answered "
                                  "by the account opened), as the ninth and eighteenth passes' "
                                  "readers wrote it (two readers each way: the record stands); "
                                  "'Great, that went through?' echoes the agent, a not-question",
    "banking_knowledge/task_068": "record right, as settled with the twenty-fourth pass (the "
                                  "push-back for the one combination is a question)",
    "banking_knowledge/task_069": "record right, as task_068's",
    "banking_knowledge/task_081": "record right on the theft: the closures' and replacements' "
                                  "reason, an argument of their tools",
    "banking_knowledge/task_086": "binds differ in name only: the debit card disputes chosen",
    "banking_knowledge/task_090": "record right: 'Why are you asking about Newark?' asks why the "
                                  "agent raises the flagged charge, a fact the reply tells "
                                  "(coverage rule 3: how, why)",
    "banking_knowledge/task_097": "pass right: the description clause is the question's and the "
                                  "list of accounts is quoted at 'I have four different savings "
                                  "accounts with your bank' (the record now has it)",
    "banking_knowledge/task_077": _LOSS_SINCE_REVISED,
}


# How each disagreement of the blind twenty-sixth pass (a third fresh reader of the
# twenty-second's 20 tasks, whose records follow what that pass's and the twenty-third's readers
# agreed on) was settled: 95.3 % (222 of 233) blind, against the records as they stood when its
# reader started; 225 of 234 against those the twenty-fifth's settlement made while it read;
# 227 of 235 after.
SETTLED_TWENTY_SIXTH: dict[str, str] = {
    "banking_knowledge/task_005": "pass right, with the twenty-second pass's reader: pretending "
                                  "the leaked email is the customer's is a false claim made to "
                                  "pass verification, an item (coverage rule 6), not manner",
    "banking_knowledge/task_058": "record right: 'You've saved up $20,000' is the figure's first "
                                  "statement (coverage rule 2), and the push-back for the one "
                                  "combination is a question (Recommendations); both earlier "
                                  "readers of the task wrote them",
    "banking_knowledge/task_070": "record right: 'that is the easiest to use' and 'gives me the "
                                  "most perks' are criteria of the account chosen (rule 2), as "
                                  "both earlier readers of the task wrote them",
    "banking_knowledge/task_083": "record right: the yes keeping the card and the new card "
                                  "number are values of the dispute's card action (coverage rule "
                                  "4), as both earlier readers wrote them",
    "banking_knowledge/task_085": "record right: each card the customer names for its disputes is "
                                  "an item (coverage rule 1), as both earlier readers wrote them",
}


# How each disagreement of the blind twenty-seventh pass, the deciding pass fixed in
# docs/tau2.md before it was read, was settled: 94.8 % (291 of 307) blind, short of 95 % by one
# item; 295 of 309 after. Its figure stands as read: the settlement changes the records, not it.
SETTLED_TWENTY_SEVENTH: dict[str, str] = {
    "banking_knowledge/task_029": "pass right: the lie 'I just got a notification that they've all "
                                  "been approved and resolved!' is a false claim made to unlock "
                                  "the update (coverage rule 6), as its twin task_027 was settled "
                                  "with the twenty-second pass; the record gained it",
    "banking_knowledge/task_038": "pass right on the label 'The two transactions that are FINE (do "
                                  "NOT dispute these):': a list of charges not to dispute is "
                                  "itemised by its label (coverage rule 1), and the record gained "
                                  "it; record right that the work address line restates the "
                                  "shipping preference that resolves to it",
    "banking_knowledge/task_079": "the task's four readers split two and two on quoting the stage "
                                  "direction 'After freezing, confirm cards should be cancelled:' "
                                  "or the line under it: the record, on the line, stands",
    "banking_knowledge/task_077": "record right, as the twenty-fourth and twenty-fifth passes' "
                                  "readers of the task had it: the stage directions only say when "
                                  "the lines under them are said (order), and the losses are the "
                                  "situation of the closures resolved in the card's item",
    "banking_knowledge/task_008": "the task's four readers split two and two on the 'I want to "
                                  "speak to someone who can actually help me!' phrase of a manner "
                                  "line: the record (manner; the demand after the eighth refusal "
                                  "is the item) stands",
    "banking_knowledge/task_021": "record right: the ask to identify the actual errors is the only "
                                  "statement asking for the fix, the cash back disputes its "
                                  "resolution names (and C8 checks); the reader made it a "
                                  "restatement of the question",
    "banking_knowledge/task_024": "record right: a conditional ask for one option is the wish "
                                  "for one product at its first statement, a question "
                                  "(Recommendations); GUIDE.md then called it how the customer "
                                  "talks, a drafting slip corrected with the twenty-ninth pass, "
                                  "so the reader followed the guide's text",
    "banking_knowledge/task_025": "record right, as task_024's",
    "banking_knowledge/task_051": "record right: 'Ask to resubmit.' restates 'could I try again?', "
                                  "the ask's first statement",
    "banking_knowledge/task_061": "record right: what is kept is an item (preferences rule 6) and "
                                  "an answer about a term of the product a criterion (coverage "
                                  "rule 2), though readers often leave both out",
    "banking_knowledge/task_081": "record right on the theft, the closures' reason (a tool "
                                  "argument)",
    "banking_knowledge/task_084": "record right: the yes keeping the card is the value of the "
                                  "disputes' card action (coverage rule 4)",
    "banking_knowledge/task_100": "record right: the condition on submitting the referral is its "
                                  "own item (preferences rule 3)",
}


# How each disagreement of the twenty-eighth and twenty-ninth passes, the second deciding
# measure fixed in docs/tau2.md before either was read, was settled. Where earlier blind readers
# of a task read the same line, their count is given: a record the task's readers mostly share
# stands. Three rules readers kept missing are now written out in GUIDE.md (the push-back
# against options, the ask whether the recommended product has a feature, the fallback that
# ends the call), and its conditional ask for one option is corrected to what the records held.
SETTLED_TWENTY_EIGHTH: dict[str, str] = {
    "banking_knowledge/task_005": "record right: the email the change is to is first stated in "
                                  "the bypass branch's line (preferences rule 2: a value the "
                                  "customer states); the supervisor's line asks the change "
                                  "without it",
    "banking_knowledge/task_094": "record right: 'I need to dispute my interest payment.' asks for "
                                  "the change, the credit, at its first statement (preferences "
                                  "rule 1); the yes to the credit offered later restates it "
                                  "(coverage rule 4)",
    "banking_knowledge/task_068": "record right on both: the push-back against options that names "
                                  "its criterion asks for one product, a question "
                                  "(Recommendations); the ask whether the recommended account has "
                                  "the feature asks a fact about it, a question (coverage rule 3), "
                                  "unlike 'Is that allowed?'; GUIDE.md now says both in so many "
                                  "words",
    "banking_knowledge/task_043": "pass right that the closure request is an item of its own: the "
                                  "record bound the goal line to the closure reason alone; it now "
                                  "quotes the request ('Express that you want to close your "
                                  "card', no closure: the fee is waived and the card kept) and "
                                  "the reason ('due to the annual fee') apart, as task_044's; "
                                  "record right, as the fifteenth pass's reader had it, that the "
                                  "closing the customer has been thinking of is situation and "
                                  "the goal line the ask (GUIDE.md now says so)",
    "banking_knowledge/task_101": "record right: what is said of a referee in a list goes in the "
                                  "referee's resolves_to (preferences rule 4); only a single "
                                  "referee's figures are criteria",
    "banking_knowledge/task_039": "record right: a list of charges not to dispute is itemised by "
                                  "its label (coverage rule 1); the coverage check does not list "
                                  "bold labels for the reader",
    "banking_knowledge/task_012": "record right on all three, as settled with the twenty-fourth "
                                  "and twenty-fifth passes: each condition is its own item "
                                  "(preferences rule 3) and the bold rule label the rule's first "
                                  "statement (coverage rule 1)",
    "banking_knowledge/task_059": "record right, as task_068's push-back",
    "banking_knowledge/task_044": "record right, as settled with the twenty-fifth pass: the "
                                  "closure reason is one the closure log takes, and the condition "
                                  "on applying its own item",
    "banking_knowledge/task_080": "record right, as the fifth pass's reader had both: after one "
                                  "card is found the customer asks, card by card, which are "
                                  "cancelled "
                                  "and replaced (a further choice, coverage rule 1), which the "
                                  "description's ask for all five does not say",
    "banking_knowledge/task_023": "record right, as settled with the twelfth and fifteenth passes: "
                                  "the don't-qualify branch is not taken (the customer qualifies, "
                                  "per τ²'s gold), which a reader of the public task cannot see",
    "banking_knowledge/task_010": "record right: the later line adds an ask for a human ('or ask "
                                  "to speak with someone who can actually look at your "
                                  "account'), its own item (coverage rule 6), which the earlier "
                                  "line, accepting an offered escalation, does not hold",
}
SETTLED_TWENTY_NINTH: dict[str, str] = {
    "banking_knowledge/task_069": "record right, as task_068's push-back (twenty-eighth pass)",
    "banking_knowledge/task_063": "record right, as task_068's push-back; the binds of the "
                                  "return criterion agree in substance (the savings account "
                                  "chosen)",
    "banking_knowledge/task_058": "record right, as task_068's push-back",
    "banking_knowledge/task_093": "record right, as the eighteenth pass's reader had it: the "
                                  "Silver savings account gets the credit, an account the "
                                  "customer asks a write on, an item at its first naming "
                                  "(coverage rule 1)",
    "banking_knowledge/task_002": "record right on both. The fallback that gives the application "
                                  "up and ends the call decides whether a card is applied for "
                                  "(preferences rule 3), not order. The conditional ask for one "
                                  "option is the wish for one product at its first statement, a "
                                  "question: GUIDE.md's sentence calling it how the customer "
                                  "talks was a drafting slip (a54cd18 put its 'So is' after the "
                                  "description line), now corrected; the reader followed it, as "
                                  "the twenty-seventh's did on task_024 and task_025",
    "banking_knowledge/task_007": "record right, as task_002's fallback, and on 'don't expect to "
                                  "use it much afterward' as settled with the sixteenth pass (the "
                                  "spend through the card, coverage rule 2)",
    "banking_knowledge/task_003": "record right, as task_002's fallback, and on 'All other "
                                  "categories is quite low.' as the eleventh and fourteenth "
                                  "passes' readers had it (the spending the card is chosen by, "
                                  "coverage rule 2)",
    "banking_knowledge/task_001": "record right, as task_002's fallback, and on the advice sought "
                                  "on which card fits, the request's item at its first statement "
                                  "(Recommendations), as the twelfth and fourteenth passes' "
                                  "readers had it",
    "banking_knowledge/task_056": "record right on 'Same deal - just tell me which ONE fits what I "
                                  "described.' (the wish for the second product, the savings "
                                  "account, a question of its own), as three of the task's five "
                                  "readers had it; the remark that more will be added to the "
                                  "savings later answers no offer (the transfer is made): the "
                                  "task's four readers split two and two, and the record "
                                  "(situation) stands",
    "banking_knowledge/task_055": "record right, as the eighth and seventeenth passes' readers had "
                                  "it: the relationship bonus, a line of the requirements list, "
                                  "is a criterion of the savings account chosen (preferences "
                                  "rule 4)",
    "banking_knowledge/task_102": "record right on 'which one should I prioritize?' (the one "
                                  "referral the window allows now, a choice the request did not "
                                  "make) and on the referees' deposits, as task_101's",
    "banking_knowledge/task_086": "record right (coverage rule 1: a card disputed on is a card the "
                                  "customer asks a write on), as the sixteenth and twenty-fifth "
                                  "passes' readers had it; the task's readers split two and two",
    "banking_knowledge/task_085": "record right, as settled with the twenty-sixth pass (coverage "
                                  "rule 1), as the twenty-second and twenty-third passes' readers "
                                  "had it",
    "banking_knowledge/task_022": "record right, as all four earlier readers of the task had it: "
                                  "the both-ways criterion of the correction",
}


# How each disagreement of the thirtieth to thirty-second passes, the third measure (two blind
# readers of the same 20 tasks and a blind reconciliation, fixed in docs/tau2.md before it was
# read), was settled; one map for the three, which read the same tasks. Where GUIDE.md's text
# decides a line, the record follows it. Where it does not, the record follows the majority of
# the independent blind readers of the task over every pass (the reconciler, who chose between
# two of them, is not counted), and stands where they tie. "n of m readers" counts them.
SETTLED_THIRD_MEASURE: dict[str, str] = {
    "banking_knowledge/task_077": "passes right on the loss ('You think you may have lost your "
                                  "wallet.'): the closures and the credit card's replacement take "
                                  "the reason lost, and a reason a tool argument takes is an item "
                                  "(GUIDE.md, a reason no argument takes), as task_080's and "
                                  "task_081's theft; the record gained it. Record right on the "
                                  "credit card and the yes to its replacement (six of seven "
                                  "readers)",
    "banking_knowledge/task_078": "passes right on the loss, as task_077's: the record gained "
                                  "'today you're stressed because you lost your wallet' (the "
                                  "closures' reason lost); the yes to the freeze offer stands "
                                  "restated of the opening's ask, its readers tied two and two; "
                                  "the shipping ask's binds agree in substance (the Green card's "
                                  "delivery option)",
    "banking_knowledge/task_081": "passes right on the yes to the agent's offer to freeze the "
                                  "three debit cards (coverage rule 4; five of six readers): the "
                                  "record gained it. Record right on the cancellation and the "
                                  "credit cards' replacement, asked card by card after one card is "
                                  "found (four of seven and five of seven readers)",
    "banking_knowledge/task_021": "passes right, as all four readers of the task had it: the ask "
                                  "to identify the actual errors asks to be told what the review "
                                  "finds (GUIDE.md, a request for help understanding a problem is "
                                  "a question), restated of the question at its first statement; "
                                  "the customer files the disputes herself with the tool the agent "
                                  "hands over (customer_steps), which no line asks the agent to "
                                  "do. The record's preference is now that restatement; the "
                                  "twenty-seventh's settlement of this line is reversed",
    "banking_knowledge/task_052": "passes right, as four of six readers had it: 'Wouldn't that "
                                  "reset my CLI history?' asks whether the downgrade resets the "
                                  "history, a fact the knowledge base answers (coverage rule 3); "
                                  "the record gained the question (no tells: the task's questions "
                                  "make no case). Record right on the loyalty and "
                                  "business-customer pleas (manner and situation, six of seven "
                                  "readers)",
    "banking_knowledge/task_051": "passes right, as three of four readers had it, on 'Ask to "
                                  "resubmit.' (the ask for the second request, the line after it "
                                  "restated) and on the payoff's amount and source, 'Just use my "
                                  "checking account to pay off the full $3,000 balance.' (values "
                                  "the customer states, preferences rule 2); the record gained "
                                  "both and its earlier lines now bind whether the payoff and a "
                                  "second request follow. Record right that 'Agree "
                                  "enthusiastically.' is no item of its own (three of four) and "
                                  "that the earlier lines are items, not questions (three of four)",
    "banking_knowledge/task_099": "record right: giving the referral up because the agent says it "
                                  "cannot be submitted accepts the refusal (GUIDE.md, accepting a "
                                  "refusal; now said beside the fallback rule), as four of five "
                                  "readers had it",
    "banking_knowledge/task_015": "record stands: the three readers of the task split on the "
                                  "referral link ask and on the EcoCard ask, which asks whether "
                                  "the offer is available (a fact, coverage rule 3); one reader "
                                  "made the situation line an item",
    "banking_knowledge/task_032": "record right, as three of four readers had it: the declines are "
                                  "the situation the question asks about",
    "banking_knowledge/task_061": "record right under GUIDE.md's text, though four of five readers "
                                  "left both out: what is kept is an item (preferences rule 6), "
                                  "and an answer about a term of the product is a criterion, not a "
                                  "restatement of the sum it rests on (coverage rule 2)",
    "banking_knowledge/task_062": "record right: the ATM-rebate ask is the first statement of a "
                                  "criterion the brief lists among the requirements (preferences "
                                  "rule 4), not an ask about a need already stated (GUIDE.md now "
                                  "says so); the closing is purpose, as four of five readers had "
                                  "it",
    "banking_knowledge/task_100": "record stands: the label asking to submit the referral now "
                                  "splits the task's readers two and two; the tenure complaint is "
                                  "a not-question (three of five readers, coverage rule 3)",
    "banking_knowledge/task_041": "record right, as three of five readers had it: the four cards' "
                                  "charges are disputed with each card kept active, a write on the "
                                  "card (coverage rule 1; GUIDE.md now sets charge disputes apart "
                                  "from cash back)",
    "banking_knowledge/task_008": "record stands: the task's six readers split three and three on "
                                  "the phrase of a manner line",
    "banking_knowledge/task_092": "binds agree in substance: the Light Blue card's item, whose fix "
                                  "the record names by its call (the transfer to the security "
                                  "team) and the readers by the card",
}
