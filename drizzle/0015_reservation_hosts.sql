-- A team slot's reservation holds every host it needs: one row per host under the reservation's uid.
ALTER TABLE "slot_reservations" DROP CONSTRAINT "slot_reservations_pkey";--> statement-breakpoint
ALTER TABLE "slot_reservations" ADD CONSTRAINT "slot_reservations_uid_user_id_pk" PRIMARY KEY("uid","user_id");
